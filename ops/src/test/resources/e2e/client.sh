#!/usr/bin/env bash
# The operator's client end to end (issue 18): every item through the `sush` CLI against real
# daemons. Run by ClientScriptTest, which starts a 2-sled rack and gives:
#   SUSH      the CLI (a script running sush.ops.Main with the test's classpath)
#   URL_A     sled A's API; URL_B sled B's; SLED_A and SLED_B their baseboards
#   WORK      a scratch directory
# Each check prints one "ok" line; the first failure prints why and exits 1.
set -euo pipefail
cd "$WORK"
# A terminal server left by a failing check never outlives the script.
trap 'tmux -L sush-e2e kill-server 2>/dev/null || true' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }

# run WANT CMD...: runs CMD with its stdout in out, its stderr in err; its exit must be WANT.
run() {
  local want=$1; shift
  set +e
  "$@" >out 2>err
  local got=$?
  set -e
  [ "$got" = "$want" ] || fail "$* exited $got, want $want; stdout: $(head -c 2000 out); stderr: $(head -c 2000 err)"
}

# has FILE TEXT: FILE holds TEXT (fixed string).
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 2000 "$1")"; }

# job_of FILE: the job id of a `--json job start` answer.
job_of() { sed -n 's/.*"job_id":"\([^"]*\)".*/\1/p' "$1" | head -n 1; }

# --- Global options before and after the subcommand -----------------------------------------
run 0 "$SUSH" --url "$URL_A" --json job start --wait -- true
has out '"job_id"'
first=$(job_of out)
run 0 "$SUSH" job status "$first" --json --url "$URL_B"
has out "\"job_id\":\"$first\""
has out "\"$SLED_A\""
ok "global options work before and after the subcommand"

# --- An argument vector arrives intact ------------------------------------------------------
run 0 "$SUSH" --url "$URL_A" --json job start --wait -- printf '%s|\n' 'a b' "it's" '$HOME' '*'
argv=$(job_of out)
run 0 "$SUSH" --url "$URL_A" job output "$argv" --sled "$SLED_B"
printf '%s|\n' 'a b' "it's" '$HOME' '*' > want
cmp -s out want || fail "argv output differs: $(cat out)"
ok "an argument vector with quotes, spaces, \$ and * runs exactly"

# --- Sled B's output through sled A: whole, suffix range, parallel download ------------------
run 0 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_B" -- \
  'head -c 3000000 /dev/urandom'
big=$(job_of out)
run 0 "$SUSH" --url "$URL_A" job status "$big" --json
has out '"stdout_bytes":3000000'
run 0 "$SUSH" --url "$URL_A" job output "$big" --sled "$SLED_B" -o big.bin --parallel 4
has out "3000000 bytes of stdout from $SLED_B written to big.bin (hash verified)"
[ "$(stat -c %s big.bin)" = 3000000 ] || fail "big.bin is $(stat -c %s big.bin) bytes"
[ ! -e big.bin.part ] || fail "a .part file was left"
run 0 "$SUSH" --url "$URL_A" job output "$big" --sled "$SLED_B" --range -1000
[ "$(stat -c %s out)" = 1000 ] || fail "the suffix range gave $(stat -c %s out) bytes"
tail -c 1000 big.bin | cmp -s - out || fail "the suffix range is not the file's last 1000 bytes"
run 0 "$SUSH" --url "$URL_A" job output "$big" --sled "$SLED_B" --range 10-19
[ "$(stat -c %s out)" = 10 ] || fail "range 10-19 gave $(stat -c %s out) bytes"
dd if=big.bin bs=1 skip=10 count=10 status=none | cmp -s - out || fail "range 10-19 differs"
run 2 "$SUSH" --url "$URL_A" job output "$big" --sled "$SLED_B" --range 5000000-
has err "bad-range"
run 4 "$SUSH" --url "$URL_A" job output "$big" --sled "$SLED_A"
has err "no status for job $big from sled $SLED_A"
ok "sled B's output fetched through sled A: whole, in 3 parallel ranges, suffix and middle ranges"

# --- Times on statuses ------------------------------------------------------------------------
run 0 "$SUSH" --url "$URL_B" job status "$first"
has out "(sled clock: started "
has out ", ended "
has out "; took "
run 0 "$SUSH" --url "$URL_B" --json job status "$first"
has out '"sled_started_at"'
has out '"duration_ms"'
ok "statuses carry each sled's own start, end and duration"

# --- History paging ---------------------------------------------------------------------------
run 0 "$SUSH" --url "$URL_A" --json job history --limit 2
[ "$(grep -o '"job_id"' out | wc -l)" = 2 ] || fail "--limit 2 listed $(grep -o '"job_id"' out | wc -l): $(cat out)"
cp out page1
run 0 "$SUSH" --url "$URL_A" --json job history --limit 2 --offset 2
[ "$(grep -o '"job_id"' out | wc -l)" = 1 ] || fail "--offset 2 listed $(grep -o '"job_id"' out | wc -l): $(cat out)"
has out "\"$first\""
run 0 "$SUSH" --url "$URL_A" job history
has out "$first"
has out "$big"
ok "history pages newest first (--limit, --offset)"

# --- Each limit, signed into the job, ends it with an error naming it ---------------------------
run 5 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_A" --wall-time 1s -- sleep 30
has out '"error":"limit"'
has out '"detail":"wall-time limit reached"'
run 5 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_A" --max-output 64K -- yes
has out '"error":"output-limit"'
run 5 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_A" --cpu 1 -- 'while :; do :; done'
has out '"error":"limit"'
has out 'cpu limit reached'
run 5 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_A" --file-size 4K -- 'head -c 100000 /dev/zero > f'
has out 'file-size limit reached'
run 0 "$SUSH" --url "$URL_A" --json job start --wait --target "$SLED_A" --address-space 2G -- \
  "grep 'Max address space' /proc/self/limits"
limits_job=$(job_of out)
run 0 "$SUSH" --url "$URL_A" job output "$limits_job" --sled "$SLED_A"
has out "2147483648"
ok "wall time, output, CPU and file size end the job naming the limit; address space is applied"

# --- Above a daemon's maximum: refused at the API with the reason --------------------------------
run 2 "$SUSH" --url "$URL_A" job start --cpu 100 -- true
has err "limit-above-maximum"
has err "cpu 100 s is above this sled's maximum 60 s"
run 2 "$SUSH" --url "$URL_A" job start --wall-time 2h -- true
has err "wall-time 7200000 ms is above this sled's maximum 600000 ms"
run 2 "$SUSH" --url "$URL_A" job start --max-output 12Q -- true
has err "--max-output is a size such as 64K, 10M or 1G, not 12Q"
ok "a request above a daemon maximum is refused with the reason; a malformed limit is a usage error"

# --- An interactive job through a real terminal (script(1) gives the CLI one) -----------------
# Typed only once the job's prompt arrived through the attach; the CLI exits with the job (5).
{
  for _ in $(seq 300); do grep -q 'bash-' term.out 2>/dev/null && break; sleep 0.1; done
  printf 'echo $((6*7)); tty; exit 3\r'
  for _ in $(seq 300); do grep -q "on $SLED_B:" term.out 2>/dev/null && break; sleep 0.1; done
} | { set +e; script -qfec "$SUSH --url $URL_A job start -i --target $SLED_B -- bash --norc --noprofile" /dev/null \
      > term.out; echo $? > term.rc; }
[ "$(cat term.rc)" = 5 ] || fail "the interactive CLI exited $(cat term.rc), want 5: $(cat term.out)"
has term.out "42"
has term.out "/dev/pts/"
has term.out "on $SLED_B: stopped exit 3"
# Ctrl-] detaches (the job goes on); `job attach` with no id returns to it, the recent past first.
{
  for _ in $(seq 300); do grep -q 'bash-' term2.out 2>/dev/null && break; sleep 0.1; done
  printf 'echo first-$((5+5))\r'
  for _ in $(seq 300); do grep -q 'first-10' term2.out 2>/dev/null && break; sleep 0.1; done
  printf '\035'
  # Input stays open until the CLI said it detached (at most 10 s): script(1) ends at its end.
  for _ in $(seq 100); do grep -q 'detached from job' term2.out 2>/dev/null && break; sleep 0.1; done
} | { set +e; script -qfec "$SUSH --url $URL_A job start -i --target $SLED_B -- bash --norc --noprofile" /dev/null \
      > term2.out; echo $? > term2.rc; }
[ "$(cat term2.rc)" = 0 ] || fail "detaching exited $(cat term2.rc): $(cat term2.out)"
has term2.out "detached from job"
{
  for _ in $(seq 300); do grep -q 'first-10' term3.out 2>/dev/null && break; sleep 0.1; done
  printf 'exit 0\r'
  for _ in $(seq 300); do grep -q "on $SLED_B:" term3.out 2>/dev/null && break; sleep 0.1; done
} | { set +e; script -qfec "$SUSH --url $URL_A job attach" /dev/null > term3.out; echo $? > term3.rc; }
[ "$(cat term3.rc)" = 0 ] || fail "reattaching exited $(cat term3.rc): $(cat term3.out)"
has term3.out "first-10"
has term3.out "on $SLED_B: stopped exit 0"
# The window follows the operator's terminal: tmux resizes it, the CLI relays SIGWINCH, the job
# reads the new size with stty.
screen() { tmux -L sush-e2e capture-pane -p -t e2e 2>/dev/null || true; }
until_screen() { for _ in $(seq 300); do screen | grep -q -- "$1" && return 0; sleep 0.1; done; fail "no '$1' on: $(screen)"; }
tmux -L sush-e2e new-session -d -s e2e -x 80 -y 24 \
  "$SUSH --url $URL_A job start -i --target $SLED_B -- bash --norc --noprofile; echo \$? > $WORK/tmux.rc; sleep 30"
until_screen 'bash-'
tmux -L sush-e2e send-keys -t e2e 'stty size' Enter
until_screen '^24 80'
tmux -L sush-e2e resize-window -t e2e -x 100 -y 40
# The new size travels tmux -> SIGWINCH -> the CLI -> the sled -> the job's terminal; asked again
# each second until it is there (up to 30 s on a loaded machine).
resized=0
for _ in $(seq 30); do
  sleep 1
  tmux -L sush-e2e send-keys -t e2e 'clear; stty size' Enter
  for _ in $(seq 10); do screen | grep -q -- '^40 100' && { resized=1; break; }; sleep 0.1; done
  [ "$resized" = 1 ] && break
done
until_screen '^40 100'
tmux -L sush-e2e send-keys -t e2e 'exit 4' Enter
for _ in $(seq 300); do [ -s tmux.rc ] && break; sleep 0.1; done
tmux -L sush-e2e kill-server
[ "$(cat tmux.rc)" = 5 ] || fail "the CLI under tmux exited $(cat tmux.rc 2>/dev/null), want 5"
run 2 "$SUSH" --url "$URL_A" job start -i -- bash
has err "one-sled-only"
ok "an interactive job runs on a terminal through the CLI: typed input, tty, exit code, Ctrl-] and attach, resize"

# --- A streaming job: stdout straight to the client, checked against the status's hash ---------
run 0 "$SUSH" --url "$URL_A" job start -S --target "$SLED_B" -- head -c 5000000 /dev/urandom
[ "$(stat -c %s out)" = 5000000 ] || fail "streamed $(stat -c %s out) bytes"
has err "5000000 bytes streamed, hash verified"
streamed=$(head -n 1 err)
run 4 "$SUSH" --url "$URL_A" job output "$streamed" --sled "$SLED_B"
has err "not-stored"
ok "a streaming job's stdout arrives whole and verified, and is not kept on the sled"
# Issue 35: an output small enough to end before the client attaches still reaches it.
run 0 "$SUSH" --url "$URL_A" job start -S --target "$SLED_B" -- 'echo hello'
[ "$(cat out)" = hello ] || fail "a small streamed output: '$(cat out)'"
ok "a small streaming output that ends before its client attaches still arrives"

# --- Completion and help ------------------------------------------------------------------------
run 0 "$SUSH" completion bash
has out "complete -F"
run 0 "$SUSH" job output --help
has out "--range"
run 0 "$SUSH" --help
has out "Exit codes"
ok "completion is generated; help lists options and exit codes"
echo "all ok"
