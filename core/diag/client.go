package diag

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// MaxScriptOutput bounds what RunScript reads back.
const MaxScriptOutput = 1 << 20

// ErrNoShell means nothing serves a jibod shell at the socket: jibod is not
// running there.
var ErrNoShell = errors.New("no jibod shell")

// RunScript runs commands (one per line) in a script session of the jibod
// shell serving its Unix socket at path, and returns what they printed.
// ctx bounds the whole session. A socket nobody serves is an error wrapping
// ErrNoShell.
func RunScript(ctx context.Context, path, commands string) (string, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	conn, err := d.DialContext(dctx, "unix", path)
	cancel()
	if err != nil {
		return "", fmt.Errorf("%w at %s: %w", ErrNoShell, path, err)
	}
	uc := conn.(*net.UnixConn)
	defer uc.Close()
	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	if _, err := io.WriteString(uc, Hello+" "+Script.String()+"\n"+commands+"\n"); err != nil {
		return "", fmt.Errorf("talking to jibod's shell at %s: %w", path, err)
	}
	if err := uc.CloseWrite(); err != nil { // the script ends here: jibod runs it and closes
		return "", fmt.Errorf("talking to jibod's shell at %s: %w", path, err)
	}
	out, err := io.ReadAll(io.LimitReader(uc, MaxScriptOutput+1))
	if ctx.Err() != nil {
		return "", fmt.Errorf("talking to jibod's shell at %s: %w", path, context.Cause(ctx))
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return "", fmt.Errorf("reading from jibod's shell at %s: %w", path, err)
	}
	if len(out) > MaxScriptOutput {
		return "", fmt.Errorf("jibod's shell at %s printed more than %d bytes", path, MaxScriptOutput)
	}
	return string(out), nil
}

// SyncSkills asks the jibod serving its shell at path to make its running
// skills match its state folder for ids (all when none): what `jibod
// skills install` and `uninstall` do after changing the folder.
func SyncSkills(ctx context.Context, path string, ids []string) (SkillSync, error) {
	for _, id := range ids {
		if id == "" || strings.ContainsAny(id, " \t\r\n\"") {
			return SkillSync{}, fmt.Errorf("skill id %q cannot be sent to the shell", id)
		}
	}
	out, err := RunScript(ctx, path, strings.TrimSpace("skills sync --json "+strings.Join(ids, " ")))
	if err != nil {
		return SkillSync{}, err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), MaxScriptOutput)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var res struct {
			SkillSync
			Error *string `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			return SkillSync{}, fmt.Errorf("jibod's shell answered skills sync with %q: %w", line, err)
		}
		if res.Error != nil {
			return SkillSync{}, fmt.Errorf("jibod's skills sync: %s", *res.Error)
		}
		return res.SkillSync, nil
	}
	return SkillSync{}, fmt.Errorf("jibod's shell at %s did not answer skills sync (it printed %q)", path, clip(out, 200))
}

// SyncSkillsOf asks the running jibod whose state folder is stateDir to
// sync ids, trying the shell sockets in candidates (existing ones, in
// order) until it finds that jibod. A jibod found there with another state
// folder syncs its own folder, which changes nothing of this one, and is
// passed over. When no jibod with stateDir answers, the error wraps
// ErrNoShell and says which, if any, were found.
func SyncSkillsOf(ctx context.Context, candidates []string, stateDir string, ids []string) (SkillSync, string, error) {
	var others []string
	for _, path := range candidates {
		if st, err := os.Stat(path); err != nil || st.Mode()&os.ModeSocket == 0 {
			continue
		}
		res, err := SyncSkills(ctx, path, ids)
		if errors.Is(err, ErrNoShell) {
			continue // a socket left by a jibod that died
		}
		if err != nil {
			return SkillSync{}, path, err
		}
		if sameDir(res.StateDir, stateDir) {
			return res, path, nil
		}
		others = append(others, fmt.Sprintf("%s (state folder %s)", path, res.StateDir))
	}
	if len(others) > 0 {
		return SkillSync{}, "", fmt.Errorf("%w for state folder %s: the jibod running at %s uses another", ErrNoShell, stateDir, strings.Join(others, ", "))
	}
	return SkillSync{}, "", fmt.Errorf("%w for state folder %s: none serves at %s", ErrNoShell, stateDir, strings.Join(candidates, ", "))
}

// sameDir reports whether two paths name the same folder.
func sameDir(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// FindSocket is the first of candidates that is a socket; when none is,
// the error says where it looked.
func FindSocket(candidates []string) (string, error) {
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no jibod shell socket at %s (is jibod running? give --socket PATH if it serves elsewhere)", strings.Join(candidates, ", "))
}

// AskPINHash reads a technician PIN from in, twice when in is a terminal
// (prompting on prompts), and returns its hash for the robot's
// configuration.
func AskPINHash(in *os.File, prompts io.Writer, iterations int) (string, error) {
	pin, err := ReadSecret(in, prompts, "technician PIN (4-12 digits): ")
	if err != nil {
		return "", fmt.Errorf("reading the PIN: %w", err)
	}
	if err := CheckPIN(pin); err != nil {
		return "", err
	}
	if st, err := in.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		again, err := ReadSecret(in, prompts, "again: ")
		if err != nil {
			return "", fmt.Errorf("reading the PIN: %w", err)
		}
		if again != pin {
			return "", errors.New("the two PINs differ; nothing printed")
		}
	}
	return HashPIN(pin, iterations)
}
