package main

import (
	"context"
	"fmt"
	"io"
)

const intentsUsage = `Usage:
  jibod intents expand                       expand templates read as JSON lines on standard input
  jibod intents match --skills DIR [--lang L] match utterances (one per line) against skills' intents
  jibod intents eval --corpus FILE [--json]   measure the intent engines on a corpus
`

// cmdIntents dispatches the intent tools for skill authors.
func cmdIntents(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, intentsUsage)
		return usageError{"intents: missing command"}
	}
	switch args[0] {
	case "expand":
		return cmdIntentsExpand(ctx, args[1:], stdin, stdout, stderr)
	case "match":
		return cmdIntentsMatch(ctx, args[1:], stdin, stdout, stderr)
	case "eval":
		return cmdIntentsEval(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, intentsUsage)
		return usageError{fmt.Sprintf("intents: unknown command %q", args[0])}
	}
}
