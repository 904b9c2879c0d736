#!/usr/bin/env bash
# Smoke run of a built jibod: three utterances through stdin, a trace file,
# and checks on what the trace says. Usage: scripts/smoke.sh bin/jibod
set -euo pipefail
bin=${1:-bin/jibod}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export JIBOD_STATE_DIR="$tmp/state" # never the developer's own skill state

"$bin" version
"$bin" selftest

printf 'hello\nwhat time is it\nflibbertigibbet\n' |
	"$bin" run --board sim --input stdin --trace "$tmp/t.jsonl" >"$tmp/out.txt"

count() { grep -c "\"type\":\"$1\"" "$tmp/t.jsonl" || true; }
fail() { echo "smoke: $*" >&2; echo "--- trace" >&2; cat "$tmp/t.jsonl" >&2; exit 1; }
[ "$(count ovos.utterance.handle)" = 3 ] || fail "want 3 ovos.utterance.handle"
[ "$(count ovos.utterance.handled)" = 3 ] || fail "want 3 ovos.utterance.handled"
# Nonsense is not left unanswered: the fallback skill says so (FALLBACK-1).
[ "$(count jibo.fallback:fallback)" = 1 ] || fail "want the fallback skill to answer flibbertigibbet"
[ "$(count ovos.intent.handler.complete)" = 3 ] || fail "want 3 ovos.intent.handler.complete"
[ "$(count ovos.utterance.speak)" = 3 ] || fail "want 3 ovos.utterance.speak: every utterance answered aloud"

# Bad input: an empty line, a 1 MB line and invalid UTF-8 must not stop the robot.
{ echo; head -c 1048576 /dev/zero | tr '\0' 'a'; echo; printf '\xff\xfe bad\n'; echo hello; } |
	"$bin" run --board sim --input stdin --trace "$tmp/bad.jsonl" >"$tmp/bad.txt" 2>"$tmp/bad.err"
grep -q '"type":"ovos.intent.handler.complete"' "$tmp/bad.jsonl" || { cat "$tmp/bad.err" >&2; fail "robot did not answer after bad input"; }
echo "smoke: ok"
