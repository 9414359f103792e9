#!/usr/bin/env bash
# Runs one of the project's measurement commands (interfaces.md, "Measurements").
# Usage: ./bench.sh NAME [--quick] [args]     ./bench.sh lists them.
set -euo pipefail
cd "$(dirname "$0")"

# name -> module and main class; benchmarks live in each module's test sources (bench package).
declare -A MODULE=( [sync]=gossip [itc]=gossip [rack]=gossip [fold]=projections [commit]=locker [modelcheck]=locker [chaincheck]=locker [replay]=pipeline [launch]=pipeline [sim]=pipeline [e2e]=ops [handshakes]=gossip [hostile]=ops [soak]=ops [page]=ops [nemesis]=ops [audit]=ops )
declare -A CLASS=( [sync]=sush.gossip.bench.SyncBench [itc]=sush.gossip.bench.ItcBench [rack]=sush.gossip.bench.RackBench [fold]=sush.projections.bench.FoldBench [commit]=sush.locker.bench.CommitBench [modelcheck]=sush.locker.model.ModelCheck [chaincheck]=sush.locker.model.ChainCheck [replay]=sush.pipeline.bench.ReplayBench [launch]=sush.pipeline.bench.LaunchBench [sim]=sush.pipeline.sim.SimMain [e2e]=sush.ops.bench.E2eBench [handshakes]=sush.gossip.bench.HandshakeProbe [hostile]=sush.ops.bench.HostileBench [soak]=sush.ops.bench.SoakBench [page]=sush.ops.bench.PageBench [nemesis]=sush.ops.nemesis.NemesisBench [audit]=sush.ops.audit.SimAudit )
declare -A ABOUT=(
  [sync]="two replicas sharing 10,000 messages, I extra on one side: time per session, bytes per message"
  [itc]="ns per tick, join and leq on versions of a 32-party universe"
  [fold]="one sled's projections folding a 1,000,000-message stream (decoding included)"
  [commit]="a full boundary store to two slot directories next to the bare write/fsync/rename floor; record size"
  [modelcheck]="exhaustive search of one sled's admission, records and locker over a bounded world"
  [chaincheck]="every delivery order of a session chain (4 jobs, 2 burns, a stop, a re-delivery, a crash): the head never returns over a started job"
  [replay]="a 1,000,000-record journal folded back through the projections, plain and sealed"
  [launch]="one sled: job at the chain head to process running (two-slot commit included), next to the bare commit"
  [sim]="the deterministic rack simulator: --seeds N random schedules (--sleds K, 8 by default), --seed S replays one, --ordering signed|causal, --compare (refusals per 1,000 under both), --jobs N a steady rack, --restarts N; sleds forget what the rack settled unless --no-forgetting"
  [e2e]="4 real daemons on loopback (slots on disk, outputs on a ramdisk; --outputs-on-disk): job start to every sled stopped (p50/p99, warm and cold), per-stage table from --trace, CPU per job, jobs/s through one session (a first burst, then the measured one), RSS (--warmup N, --jobs N, --daemon-jvm \"FLAGS\")"
  [handshakes]="32 transports with rack certificates dial a full mesh (496 mutual TLS handshakes), three rounds: cold to warm"
  [hostile]="one real daemon: RSS and /version latency under 20 stalled downloads of a 60 MB output and 900 idle connections"
  [soak]="4 real daemons of a signed rack run --jobs N (20,000) in sessions of 100: every 1,000 jobs heap after GC, RSS, messages held, journal and output bytes, p50/p99; what grows per job (--no-forgetting: daemons keep every message)"
  [nemesis]="real daemons in network namespaces under a seeded nemesis (partitions, one-way drops, congested and lossy links, kill -9, power cuts, SIGSTOP, slow and failing slots, a full disk, shifted clocks, cold boots) for --minutes M (10), then healed: at most once, status truth, liveness (--sleds N, --ordering signed|causal, --seed S, --no-forgetting; root)"
  [audit]="issue 40's receipts on the simulator: sleds sign with keys of one rack CA; every session's bundle through sush audit verify's check (0 false alarms), then mutated five ways (each caught and named) (--seeds N, --seed S, --sleds K, --ordering signed|causal)"
  [page]="the rack page in Chromium: 32 real daemons (in one JVM), 1,000 jobs of history, ms from navigation to everything drawn (--sleds, --jobs, --loads)"
  [rack]="32 sleds on loopback TCP: cold boot, dissemination (also at 100 ms per hop), against ScaleCube (its loopback profile) and JGroups (stock tcp.xml), each in its own warmed JVM"
)

# Mutation testing of the core (issue 21): PIT per module, then one table and a JSON line.
#   ./bench.sh mutation                 every core package of gossip, projections, locker, pipeline
#   ./bench.sh mutation locker          one module's core packages
#   ./bench.sh mutation sush.locker.store   one package
if [ "${1:-}" = mutation ]; then
  shift
  what=${1:-}
  modules=(gossip projections locker pipeline)
  declare -A CORE=( [gossip]="sush.gossip.clock.*,sush.gossip.set.*,sush.gossip.sync.*"
    [projections]="sush.projections.id.*,sush.projections.job.*,sush.projections.fold.*"
    [locker]="sush.locker.admission.*,sush.locker.record.*,sush.locker.store.*"
    [pipeline]="sush.pipeline.sled.*,sush.pipeline.journal.*" )
  only=""
  case "$what" in
    "") ;;
    gossip|projections|locker|pipeline) modules=("$what") ;;
    sush.*) modules=("$(echo "$what" | cut -d. -f2)"); only="$what.*" ;;
    *) echo "mutation: give a module (gossip projections locker pipeline) or a package (sush.locker.store)" >&2; exit 2 ;;
  esac
  echo "building (tests skipped) ..." >&2
  mvn -B -q -DskipTests install >&2
  reports=()
  for m in "${modules[@]}"; do
    echo "mutating $m ..." >&2
    mvn -B -q -P mutation -pl "$m" org.pitest:pitest-maven:mutationCoverage -DtargetClasses="${only:-${CORE[$m]}}" >&2
    reports+=("$m/target/pit-reports/mutations.xml")
  done
  mvn -B -q -pl gossip dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
  exec java -cp "gossip/target/test-classes:gossip/target/classes:$(cat gossip/target/bench.classpath)" \
    sush.gossip.bench.MutationReport docs/mutation.md "${reports[@]}"
fi

if [ $# -eq 0 ] || [ -z "${MODULE[$1]:-}" ]; then
  [ $# -gt 0 ] && echo "unknown measurement: $1" >&2
  echo "usage: ./bench.sh NAME [--quick] [args]"
  printf '  %-10s %s\n' mutation "PIT over the core packages (or one MODULE or PACKAGE): a table per class, killed_pct per package"
  for name in $(printf '%s\n' "${!MODULE[@]}" | sort); do
    printf '  %-10s %s\n' "$name" "${ABOUT[$name]}"
  done
  [ $# -eq 0 ] && exit 0 || exit 2
fi

name=$1; shift
module=${MODULE[$name]}
if [ "$name" = nemesis ]; then
  # The nemesis drops packets with iptables-legacy and shifts clocks with libfaketime (issue 38).
  need=()
  command -v iptables-legacy >/dev/null || need+=(iptables)
  [ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || need+=(faketime)
  command -v fallocate >/dev/null || need+=(util-linux)
  if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null) \
      || echo "nemesis: could not install ${need[*]}; the run will say what is missing" >&2
  fi
fi
echo "building $module (tests skipped) ..." >&2
mvn -B -q -DskipTests -pl "$module" -am install >&2
mvn -B -q -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/bench.classpath >&2
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench.classpath")"
# Chronicle Queue (the journal) needs these on every JVM that touches it (dependencies.md).
chronicle=$(sed -n 's:.*<chronicle.jvm.flags>\(.*\)</chronicle.jvm.flags>.*:\1:p' pom.xml)
exec java ${BENCH_JAVA_OPTS:-} $chronicle -Xss1m -Xmx4g -cp "$cp" "${CLASS[$name]}" "$@"
