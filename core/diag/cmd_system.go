package diag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
)

// Audio command limits.
const (
	// MaxRecordSeconds bounds audio record.
	MaxRecordSeconds = 60
	// maxLevelSeconds bounds audio level.
	maxLevelSeconds = 10
	// recordingsDir is where audio record puts a file named without a
	// folder, inside the state folder.
	recordingsDir = "recordings"
)

// TopicWakeRequest asks the robot's ear to listen for a command without
// the wake phrase (audio/listen's jibo.audio.wake.request).
const TopicWakeRequest = "jibo.audio.wake.request"

const audioHelp = `  audio devices                  the capture devices the robot can open, and which one it uses
  audio listen                   make the robot listen for a command now, as after "hey jibo"
  audio level [seconds]          the microphone's loudness over one second (or the seconds given, up to 10):
                                 RMS and peak in dBFS (0 is full scale; a quiet room is about -60, silence -90)
  audio record <seconds> <file>  * record up to 60 seconds of what the robot hears to a 16 kHz mono WAV file.
                                 A bare file name goes to the recordings folder of the state folder; an
                                 existing file is never overwritten. Needs technician mode: it records the room.`

func cmdAudio(c *call) error {
	a := c.srv.env.Audio
	if a == nil {
		return errors.New("no audio input on this robot")
	}
	if len(c.args) == 0 {
		return c.usageErr("devices, level or record")
	}
	switch c.args[0] {
	case "listen":
		if len(c.args) > 1 {
			return c.usageErr("listen takes no arguments")
		}
		b := c.srv.env.Bus
		if b == nil {
			return missing("message bus")
		}
		m := bus.NewMessage(TopicWakeRequest, map[string]any{})
		m.Context[bus.KeySource] = fmt.Sprintf("shell-%d", c.s.id)
		if err := b.Publish(c.ctx, m); err != nil {
			return fmt.Errorf("asking the robot to listen: %w", err)
		}
		if c.json {
			return c.emit(map[string]any{"listening": true})
		}
		return c.printf("the robot listens for a command now (bus tail jibo.audio shows what it hears)\n")
	case "devices":
		if len(c.args) > 1 {
			return c.usageErr("devices takes no arguments")
		}
		devs, err := a.Devices(c.ctx)
		if err != nil {
			return fmt.Errorf("listing audio devices: %w", err)
		}
		if c.json {
			return c.emit(map[string]any{"devices": devs})
		}
		if len(devs) == 0 {
			return c.printf("no capture devices found\n")
		}
		rows := [][]string{{"backend", "id", "name", "format", ""}}
		for _, d := range devs {
			var flags []string
			if d.Default {
				flags = append(flags, "default")
			}
			if d.InUse {
				flags = append(flags, "in use")
			}
			format := ""
			if d.SampleRate > 0 {
				format = fmt.Sprintf("%d Hz, %d ch", d.SampleRate, d.Channels)
			}
			rows = append(rows, []string{d.Backend, d.ID, d.Name, format, strings.Join(flags, ", ")})
		}
		return c.table(rows)
	case "level":
		secs := 1.0
		if len(c.args) > 2 {
			return c.usageErr("level takes the seconds at most")
		}
		if len(c.args) == 2 {
			v, err := strconv.ParseFloat(c.args[1], 64)
			if err != nil || v < 0.1 || v > maxLevelSeconds {
				return c.usageErr("seconds %q: want 0.1..%d", c.args[1], maxLevelSeconds)
			}
			secs = v
		}
		d := time.Duration(secs * float64(time.Second))
		ctx, cancel := context.WithTimeout(c.ctx, d+5*time.Second)
		defer cancel()
		lv, err := a.Level(ctx, d)
		if err != nil {
			if c.ctx.Err() != nil {
				return context.Cause(c.ctx)
			}
			return fmt.Errorf("measuring the audio level: %w", err)
		}
		if c.json {
			return c.emit(map[string]any{"rms_dbfs": finiteDB(lv.RMS), "peak_dbfs": finiteDB(lv.Peak), "seconds": secs, "source": lv.Source})
		}
		return c.printf("%.1f dBFS RMS, peak %.1f dBFS over %.1f s from %s\n", finiteDB(lv.RMS), finiteDB(lv.Peak), secs, lv.Source)
	case "record":
		return c.record(a)
	}
	return c.usageErr("no audio command %q", c.args[0])
}

func (c *call) record(a Audio) error {
	if len(c.args) != 3 {
		return c.usageErr("record needs the seconds and a file")
	}
	secs, err := strconv.ParseFloat(c.args[1], 64)
	if err != nil || secs < 0.1 || secs > MaxRecordSeconds {
		return c.usageErr("seconds %q: want 0.1..%d", c.args[1], MaxRecordSeconds)
	}
	path := c.args[2]
	if !strings.HasSuffix(strings.ToLower(path), ".wav") {
		return errors.New("the file must end in .wav")
	}
	if !filepath.IsAbs(path) {
		if strings.ContainsRune(path, filepath.Separator) {
			return errors.New("give a bare file name (kept in the state folder's recordings) or an absolute path")
		}
		if c.srv.env.StateDir == "" {
			return errors.New("this robot keeps no state folder: give an absolute path")
		}
		dir := filepath.Join(c.srv.env.StateDir, recordingsDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("recordings folder: %w", err)
		}
		path = filepath.Join(dir, path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	d := time.Duration(secs * float64(time.Second))
	if !c.json {
		if err := c.printf("recording %.1f s to %s (Ctrl-C stops)...\n", secs, path); err != nil {
			_ = f.Close()
			_ = os.Remove(path)
			return err
		}
	}
	ctx, cancel := context.WithTimeout(c.ctx, d+10*time.Second)
	defer cancel()
	n, rate, err := a.Record(ctx, d, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		if c.ctx.Err() != nil {
			_ = c.printf("stopped; nothing kept\n")
			return context.Cause(c.ctx)
		}
		return fmt.Errorf("recording: %w", err)
	}
	c.srv.log.Warn("shell: audio recorded", "session", c.s.id, "file", path, "seconds", secs)
	if c.json {
		return c.emit(map[string]any{"file": path, "samples": n, "rate": rate})
	}
	return c.printf("wrote %s: %d samples at %d Hz (%.1f s)\n", path, n, rate, float64(n)/float64(max(rate, 1)))
}

func cmdBoard(c *call) error {
	if len(c.args) != 1 || c.args[0] != "check" {
		return c.usageErr("board check")
	}
	check := c.srv.env.BoardCheck
	if check == nil {
		return missing("body to check")
	}
	results := check(c.ctx)
	failed := 0
	for _, r := range results {
		if !r.OK {
			failed++
		}
	}
	if c.json {
		if err := c.emit(map[string]any{"board": c.srv.env.Board, "devices": results, "failed": failed}); err != nil {
			return err
		}
	} else {
		rows := [][]string{{"device", "driver", "where", "state", "detail"}}
		for _, r := range results {
			state, what := "ok", r.Detail
			if !r.OK {
				state, what = "FAIL", r.Error
			}
			rows = append(rows, []string{r.Device, r.Driver, r.Where, state, what})
		}
		if err := c.printf("board %s:\n", c.srv.env.Board); err != nil {
			return err
		}
		if err := c.table(rows); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d devices did not answer", failed, len(results))
	}
	return nil
}

func cmdSelftest(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("no arguments")
	}
	run := c.srv.env.Selftest
	if run == nil {
		return missing("self-test")
	}
	passed, failed := 0, 0
	var werr error
	err := run(c.ctx, func(ch Check) {
		if ch.OK {
			passed++
		} else {
			failed++
		}
		if werr != nil {
			return
		}
		if c.json {
			werr = c.emit(ch)
			return
		}
		state := "[pass]"
		if !ch.OK {
			state = "[FAIL]"
		}
		werr = c.printf("%s %s: %s\n", state, ch.Name, ch.Detail)
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		if c.ctx.Err() != nil {
			return context.Cause(c.ctx)
		}
		return fmt.Errorf("selftest: %w", err)
	}
	if c.json {
		if err := c.emit(map[string]any{"passed": passed, "failed": failed}); err != nil {
			return err
		}
	} else if err := c.printf("selftest: %d passed, %d failed\n", passed, failed); err != nil {
		return err
	}
	if failed > 0 {
		return errors.New("selftest failed")
	}
	return nil
}

// shellSettings are the shell's own configuration keys.
func (s *Server) shellSettings() []Setting {
	return []Setting{
		{Key: "shell.idle_lock", Help: "technician mode locks after this long without a command (1m..8h)",
			Get: func() string { return s.idleLimit().String() },
			Check: func(v string) (any, error) {
				d, err := time.ParseDuration(v)
				if err != nil || d < time.Minute || d > MaxIdleLock {
					return nil, fmt.Errorf("want a duration from 1m to %s, like 15m", MaxIdleLock)
				}
				return d, nil
			},
			Apply: func(v any) error {
				s.idleMu.Lock()
				s.idleLock = v.(time.Duration)
				s.idleMu.Unlock()
				return nil
			}},
		{Key: "motor.margin", Help: "how far inside each axis's limits `motor` keeps without --override (radians, or 5deg; 0..0.5 rad)",
			Get: func() string { return strconv.FormatFloat(s.motorMargin(), 'f', -1, 64) },
			Check: func(v string) (any, error) {
				r, err := parseAngle(v)
				if err != nil || r < 0 || r > MaxMotorMargin {
					return nil, fmt.Errorf("want 0..%g rad (or degrees, 5deg)", MaxMotorMargin)
				}
				return r, nil
			},
			Apply: func(v any) error {
				s.idleMu.Lock()
				s.margin = v.(float64)
				s.idleMu.Unlock()
				return nil
			}},
	}
}

func (s *Server) setting(key string) (*Setting, bool) {
	for i := range s.settings {
		if s.settings[i].Key == key {
			return &s.settings[i], true
		}
	}
	return nil, false
}

func cmdConfig(c *call) error {
	if len(c.args) == 0 {
		return c.usageErr("get or set")
	}
	switch c.args[0] {
	case "get":
		if len(c.args) > 2 {
			return c.usageErr("get takes one key at most")
		}
		list := c.srv.settings
		if len(c.args) == 2 {
			st, ok := c.srv.setting(c.args[1])
			if !ok {
				return fmt.Errorf("no key %q (keys: %s)", c.args[1], strings.Join(c.srv.settingKeys(), ", "))
			}
			list = []Setting{*st}
		}
		if c.json {
			out := map[string]string{}
			for _, st := range list {
				out[st.Key] = st.Get()
			}
			return c.emit(out)
		}
		rows := [][]string{}
		for _, st := range list {
			rows = append(rows, []string{st.Key, st.Get(), st.Help})
		}
		return c.table(rows)
	case "set":
		return c.configSet(c.args[1:])
	}
	return c.usageErr("no config command %q", c.args[0])
}

func (s *Server) settingKeys() []string {
	var out []string
	for _, st := range s.settings {
		out = append(out, st.Key)
	}
	return out
}

// configSet checks every key=value first and applies nothing unless all
// are valid; if applying one fails, those already applied are put back.
func (c *call) configSet(args []string) error {
	var pairs [][2]string
	if len(args) == 2 && !strings.Contains(args[0], "=") {
		pairs = append(pairs, [2]string{args[0], args[1]})
	} else {
		for _, a := range args {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" {
				return c.usageErr("%q is not key=value", a)
			}
			pairs = append(pairs, [2]string{k, v})
		}
	}
	if len(pairs) == 0 {
		return c.usageErr("nothing to set")
	}
	changes, err := c.srv.setConfig(pairs, fmt.Sprintf("shell session %d (%s)", c.s.id, c.s.conn.Name))
	if err != nil {
		return err
	}
	if c.json {
		out := map[string]string{}
		for _, ch := range changes {
			out[ch.Key] = ch.New
		}
		return c.emit(out)
	}
	for _, ch := range changes {
		if err := c.printf("%s: %s -> %s\n", ch.Key, ch.Old, ch.New); err != nil {
			return err
		}
	}
	return nil
}

// setConfig sets each key to its value, all or none: every pair is
// checked before any is applied, and if applying one fails those already
// applied are put back. from names who asked, for the log.
func (s *Server) setConfig(pairs [][2]string, from string) ([]ConfigChange, error) {
	type change struct {
		st  *Setting
		raw string
		v   any
		old string
	}
	if len(pairs) == 0 {
		return nil, errors.New("nothing to set")
	}
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	var changes []change
	seen := map[string]bool{}
	var problems []string
	for _, p := range pairs {
		st, ok := s.setting(p[0])
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: no such key", p[0]))
			continue
		}
		if seen[p[0]] {
			problems = append(problems, fmt.Sprintf("%s: given twice", p[0]))
			continue
		}
		seen[p[0]] = true
		v, err := st.Check(p[1])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s=%s: %v", p[0], p[1], err))
			continue
		}
		changes = append(changes, change{st: st, raw: p[1], v: v, old: st.Get()})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("nothing changed: %s", strings.Join(problems, "; "))
	}
	for i, ch := range changes {
		if err := ch.st.Apply(ch.v); err != nil {
			// Put back what was applied, newest first.
			var undo []string
			for j := i - 1; j >= 0; j-- {
				prev := changes[j]
				v, cerr := prev.st.Check(prev.old)
				if cerr != nil {
					// An old value set outside the shell's range (a flag
					// at start) cannot be put back: say so, never stay silent.
					undo = append(undo, fmt.Sprintf("%s stays %s: its old value %s is outside what the shell sets", prev.st.Key, prev.raw, prev.old))
					continue
				}
				if aerr := prev.st.Apply(v); aerr != nil {
					undo = append(undo, fmt.Sprintf("%s stays %s: %v", prev.st.Key, prev.raw, aerr))
				}
			}
			msg := fmt.Sprintf("applying %s=%s: %v; the others were put back", ch.st.Key, ch.raw, err)
			if len(undo) > 0 {
				msg += " except: " + strings.Join(undo, "; ")
			}
			s.log.Error("shell: config set failed", "from", from, "err", msg)
			return nil, errors.New(msg)
		}
	}
	out := make([]ConfigChange, 0, len(changes))
	for _, ch := range changes {
		c := ConfigChange{Key: ch.st.Key, Old: ch.old, New: ch.st.Get()}
		out = append(out, c)
		s.log.Warn("shell: config changed", "from", from, "key", c.Key, "old", c.Old, "new", c.New)
	}
	return out, nil
}

func cmdReboot(c *call) error {
	reboot := c.srv.env.Reboot
	if reboot == nil {
		return errors.New("this robot cannot be rebooted from the shell (its configuration says so)")
	}
	yes := false
	for _, a := range c.args {
		if a != "--yes" {
			return c.usageErr("unexpected %q", a)
		}
		yes = true
	}
	how := c.srv.env.RebootHow
	if how == "" {
		how = "restart the robot"
	}
	if !yes {
		ans, err := c.ask("This will "+how+". Type yes to go on: ", false)
		if err != nil {
			return err
		}
		if strings.TrimSpace(strings.ToLower(ans)) != "yes" {
			return c.printf("not rebooting\n")
		}
	}
	c.srv.log.Warn("shell: reboot", "session", c.s.id, "from", c.s.conn.Name, "how", how)
	if err := c.printf("rebooting: %s\n", how); err != nil {
		return err
	}
	if err := reboot(c.ctx); err != nil {
		return fmt.Errorf("reboot: %w", err)
	}
	return nil
}
