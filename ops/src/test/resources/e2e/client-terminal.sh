#!/usr/bin/env bash
# The operator's client end to end (issue 18), the checks that need the CLI as its own process:
# the real entry point with its arguments as a shell hands them, and an interactive job on a real
# terminal. Every other check of the client runs in ClientInProcessTest's JVM. Run by
# ClientTerminalScriptTest, which starts a 2-sled rack and gives:
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

# --- The real CLI: its main, and an argument vector as the shell passes it ------------------------
run 0 "$SUSH" --help
has out "Exit codes"
run 0 "$SUSH" --url "$URL_A" job start --wait -- printf '%s|\n' 'a b' "it's" '$HOME' '*'
has out "a b|"
has out "it's|"
has out '$HOME|'
has out '*|'
ok "the real CLI's main: its help, and a job waited for with an argument vector as the shell passed it"

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
ok "an interactive job runs on a terminal through the CLI: typed input, tty, exit code, Ctrl-] and attach, resize"
echo "all ok"
