#!/usr/bin/env bash
# Runs an A2A conformance kit (a2aproject/a2a-tck) against the runtime serving
# test/fixtures/tck-agent (docs/a2a-conformance.md). Not part of `npm test`: the kit is a Python
# project fetched from GitHub.
#   scripts/a2a-tck.sh /path/to/a2a-tck [category...]      the 0.3.0 kit (tag 0.3.0.beta4)
#   scripts/a2a-tck.sh --v1 /path/to/a2a-tck [transports]  the 1.0 kit (branch 1.0-dev,
#                                                         tests/compatibility; default jsonrpc,http_json)
set -euo pipefail
V1=0
if [ "${1:-}" = "--v1" ]; then V1=1; shift; fi
KIT="${1:?usage: scripts/a2a-tck.sh [--v1] /path/to/a2a-tck [categories | transports]}"
shift
cd "$(dirname "$0")/.."
PORT="${TCK_PORT:-18080}"
DATA="$(mktemp -d)"
# PUSH_ALLOW_PRIVATE=1: the kit's push-notification webhook listens on localhost (docs/a2a-conformance.md).
AGENT_ID=tck PUSH_ALLOW_PRIVATE=1 node bin/agent-studio.mjs runtime --project test/fixtures/tck-agent --port "$PORT" --data-dir "$DATA" >"$DATA/runtime.log" 2>&1 &
RUNTIME=$!
trap 'kill $RUNTIME 2>/dev/null; wait $RUNTIME 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/livez" >/dev/null && break; sleep 0.5; done
status=0
if [ $V1 -eq 1 ]; then
  TRANSPORTS="${1:-jsonrpc,http_json}"
  echo "== A2A 1.0 kit: $TRANSPORTS"
  # pytest directly (run_tck.py also asks for pytest-html, which Debian does not package), with
  # scripts/a2a-tck-v1 standing in for what Debian's Python packages lack. The gRPC tests need
  # google.rpc, which Debian does not package either; the runtime serves no gRPC.
  SHIM="$PWD/scripts/a2a-tck-v1"
  if ! (cd "$KIT" && PYTHONPATH="$SHIM" /usr/bin/python3 -m pytest -c "$SHIM/pytest.ini" --rootdir="$KIT" tests/compatibility/ \
    --ignore=tests/compatibility/grpc --sut-host="http://127.0.0.1:$PORT" --transport="$TRANSPORTS" --tb=line -q -rs -p no:cacheprovider) >"$DATA/v1.log" 2>&1; then status=1; fi
  sed -n '/BY TRANSPORT/,/^═/p' "$DATA/v1.log"
  grep -E '^(FAILED|ERROR) |[0-9]+ (passed|failed)' "$DATA/v1.log" || tail -5 "$DATA/v1.log"
  exit $status
fi
CATEGORIES=("${@:-mandatory}")
[ $# -eq 0 ] && CATEGORIES=(mandatory capabilities quality features)
for c in "${CATEGORIES[@]}"; do
  echo "== A2A 0.3.0 kit: $c"
  if ! (cd "$KIT" && /usr/bin/python3 run_tck.py --sut-url "http://127.0.0.1:$PORT/" --category "$c") >"$DATA/$c.log" 2>&1; then status=1; fi
  grep -E '^(FAILED|ERROR) |[0-9]+ (passed|failed)' "$DATA/$c.log" || tail -5 "$DATA/$c.log"
done
exit $status
