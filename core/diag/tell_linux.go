package diag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// tellTimeout bounds telling the running jibod: loading a module it must
// compile again (its cache entry damaged) can take a while on a board.
const tellTimeout = 3 * time.Minute

// notLoaded is the change of a skill a sync could not load.
const notLoaded = "not loaded"

// TellSkillSync asks the jibod running with stateDir (through socket, or
// where SocketCandidates looks when socket is "") to sync skill id, and
// says on w what it did; running says whether one was. No jibod running
// there is not an error: the skill follows at its next start. A skill the
// running jibod could not load is an error.
func TellSkillSync(ctx context.Context, socket, stateDir, id string, w io.Writer) (running bool, _ error) {
	candidates := SocketCandidates(stateDir)
	if socket != "" {
		candidates = []string{socket}
	}
	ctx, cancel := context.WithTimeout(ctx, tellTimeout)
	defer cancel()
	res, path, err := SyncSkillsOf(ctx, candidates, stateDir, []string{id})
	switch {
	case errors.Is(err, ErrNoShell):
		fmt.Fprintf(w, "No jibod is running with %s: it takes the change when it starts.\n", stateDir)
		return false, nil
	case err != nil:
		return true, fmt.Errorf("the change is in %s, but telling the running jibod: %w", stateDir, err)
	}
	var failed []string
	for _, c := range res.Changes {
		if c.Change == notLoaded {
			failed = append(failed, c.ID+": "+c.Error)
			continue
		}
		fmt.Fprintf(w, "The running jibod (%s): %s.\n", path, c)
	}
	if len(failed) > 0 {
		return true, fmt.Errorf("the running jibod could not load it: %s", strings.Join(failed, "; "))
	}
	return true, nil
}
