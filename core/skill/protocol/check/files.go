package check

import (
	"context"
	"fmt"
	"io"
)

// Recognition says, for people, how a file's kind is recognised from its
// content: what `jibod protocol check -h` prints.
const Recognition = `  mim_type or prompts          MIM (.mim)
  type LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH
                               skill request
  type SKILL_ACTION            skill response (the hub forwards it unchanged)
  type SKILL_REDIRECT, ERROR   hub-to-robot if data has match (redirect) or
                               no skill (error), else skill response
  type LISTEN                  hub-to-robot if data has nlu or match (the
                               turn's result), else robot-to-hub
  type CONTEXT, TRIGGER, CMD_RESULT, CLIENT_ASR, CLIENT_NLU
                               robot-to-hub
  type SOS, EOS, ASR, NLU, PROACTIVE, COMMAND
                               hub-to-robot
  type JCP, or config.jcp      JCP action
  type SLIM, SEQUENCE, PARALLEL, SET_PRESENT_PERSON, IMPACT_EMOTION, LOOKAT,
       PLAY_ANIMATION (PLAY, LISTEN, DISPLAY: only inside a SLIM)
                               JCP behaviour, checked as the root of an action
                               (as jibod jcp run runs it)
  intents                      skill manifest (jibo.md §2.6)
`

// Files checks every file as kind ("" recognises each) and writes
// "FILE: KIND ok" and, unless quiet, the canonical JSON on a line to w;
// an invalid or unreadable file is "FILE: error: PROBLEM" on warn, and
// the error then says how many failed.
func Files(ctx context.Context, w, warn io.Writer, files []string, kind Kind, quiet bool) error {
	failed := 0
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := File(file, kind)
		if err != nil {
			failed++
			fmt.Fprintf(warn, "%s: error: %v\n", file, err)
			continue
		}
		for _, wr := range res.Warnings {
			fmt.Fprintf(warn, "%s: warning: %s\n", file, wr)
		}
		fmt.Fprintf(w, "%s: %s ok\n", file, res.Label)
		if !quiet {
			fmt.Fprintf(w, "%s\n", res.Canonical)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files invalid", failed, len(files))
	}
	return nil
}
