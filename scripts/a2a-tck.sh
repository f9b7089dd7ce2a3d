#!/usr/bin/env bash
# Runs the A2A 0.3.0 conformance kit (a2aproject/a2a-tck, tag 0.3.0.beta4) against the runtime
# serving test/fixtures/tck-agent (docs/a2a-conformance.md). Not part of `npm test`: the kit is
# a Python project fetched from GitHub. Usage: scripts/a2a-tck.sh /path/to/a2a-tck [category...]
set -euo pipefail
KIT="${1:?usage: scripts/a2a-tck.sh /path/to/a2a-tck [mandatory capabilities quality features]}"
shift
CATEGORIES=("${@:-mandatory}")
[ $# -eq 0 ] && CATEGORIES=(mandatory capabilities quality features)
cd "$(dirname "$0")/.."
PORT="${TCK_PORT:-18080}"
DATA="$(mktemp -d)"
# PUSH_ALLOW_PRIVATE=1: the kit's push-notification webhook listens on localhost (docs/a2a-conformance.md).
AGENT_ID=tck PUSH_ALLOW_PRIVATE=1 node bin/agent-studio.mjs runtime --project test/fixtures/tck-agent --port "$PORT" --data-dir "$DATA" >"$DATA/runtime.log" 2>&1 &
RUNTIME=$!
trap 'kill $RUNTIME 2>/dev/null; wait $RUNTIME 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/livez" >/dev/null && break; sleep 0.5; done
status=0
for c in "${CATEGORIES[@]}"; do
  echo "== A2A 0.3.0 kit: $c"
  if ! (cd "$KIT" && /usr/bin/python3 run_tck.py --sut-url "http://127.0.0.1:$PORT/" --category "$c") >"$DATA/$c.log" 2>&1; then status=1; fi
  grep -E '^(FAILED|ERROR) |[0-9]+ (passed|failed)' "$DATA/$c.log" || tail -5 "$DATA/$c.log"
done
exit $status
