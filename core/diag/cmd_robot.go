package diag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/interrupt"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/jcp"
)

// Limits of the bus and utterance commands.
const (
	// maxTailPrefixes bounds the prefixes of one bus tail.
	maxTailPrefixes = 16
	// tailQueue is bus tail's subscriber queue; when the terminal is
	// slower than the bus, the newest messages are dropped and counted.
	tailQueue = 1024
	// maxValueText and maxTailLine cut long values and lines in bus tail
	// unless --full is given.
	maxValueText = 120
	maxTailLine  = 400
	// utterTimeout bounds waiting for an utterance's end.
	utterTimeout = 2 * time.Minute
	// queryTimeout bounds waiting for a bus query's answer.
	queryTimeout = 5 * time.Second
	// keyShellInput is the context key the shell marks its utterances
	// with; every lifecycle message carries it back.
	keyShellInput = "diag_input"
	// maxSayBytes bounds the text of say and utter.
	maxSayBytes = 2000
)

func cmdBus(c *call) error {
	b := c.srv.env.Bus
	if b == nil {
		return missing("message bus")
	}
	if len(c.args) == 0 {
		return c.usageErr("tail or stats")
	}
	switch c.args[0] {
	case "stats":
		if len(c.args) > 1 {
			return c.usageErr("stats takes no arguments")
		}
		st := b.Stats()
		if c.json {
			return c.emit(map[string]any{"published": st.Published, "rejected": st.Rejected, "subscribers": st.Subscribers, "dropped": st.Dropped})
		}
		if err := c.printf("published %d, refused %d, subscribers %d\n", st.Published, st.Rejected, st.Subscribers); err != nil {
			return err
		}
		names := make([]string, 0, len(st.Dropped))
		for n := range st.Dropped {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := c.printf("  dropped by %s: %d\n", n, st.Dropped[n]); err != nil {
				return err
			}
		}
		return nil
	case "tail":
		return c.busTail(b, c.args[1:])
	}
	return c.usageErr("no bus command %q", c.args[0])
}

func (c *call) busTail(b Bus, args []string) error {
	var patterns []string
	count, full := 0, false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--full":
			full = true
		case "--count":
			if i+1 == len(args) {
				return c.usageErr("--count needs a number")
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 || n > 1_000_000 {
				return c.usageErr("--count %q: want 1..1000000", args[i])
			}
			count = n
		default:
			p := a
			if !strings.HasSuffix(p, "*") {
				p += "*"
			}
			if err := bus.ValidatePattern(p); err != nil {
				return fmt.Errorf("topic prefix %q: %w", a, err)
			}
			patterns = append(patterns, p)
		}
	}
	if len(patterns) > maxTailPrefixes {
		return c.usageErr("at most %d prefixes", maxTailPrefixes)
	}
	if len(patterns) == 0 {
		patterns = []string{"*"}
	}
	var shown atomic.Int64
	enough := make(chan struct{})
	var once sync.Once
	var writeErr atomic.Value
	sub, err := b.SubscribeAll(patterns, func(_ context.Context, m bus.Message) {
		if count > 0 && shown.Load() >= int64(count) {
			return
		}
		var err error
		if c.json {
			err = c.emit(m)
		} else {
			err = c.printf("%s\n", tailLine(m, time.Now(), full))
		}
		if err != nil {
			writeErr.Store(err)
			once.Do(func() { close(enough) })
			return
		}
		if n := shown.Add(1); count > 0 && n >= int64(count) {
			once.Do(func() { close(enough) })
		}
	}, bus.WithName(fmt.Sprintf("shell-%d-tail", c.s.id)), bus.WithQueue(tailQueue, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("bus tail: %w", err)
	}
	if !c.json {
		if err := c.printf("(watching %s; Ctrl-C stops)\n", strings.Join(patterns, " ")); err != nil {
			sub.Close()
			return err
		}
	}
	select {
	case <-enough:
	case <-c.ctx.Done():
	}
	sub.Close()
	if err, _ := writeErr.Load().(error); err != nil {
		return err
	}
	if c.json {
		return nil
	}
	msg := fmt.Sprintf("(%d shown", shown.Load())
	if d := sub.Dropped(); d > 0 {
		msg += fmt.Sprintf(", %d dropped: the terminal is slower than the bus", d)
	}
	return c.printf("%s)\n", msg)
}

// tailLine is one bus message for people: time, topic, data as key=value.
func tailLine(m bus.Message, at time.Time, full bool) string {
	var b strings.Builder
	b.WriteString(at.Format("15:04:05.000"))
	b.WriteByte(' ')
	b.WriteString(m.Type)
	b.WriteString(dataText(m.Data, full))
	s := b.String()
	if !full {
		s = clip(s, maxTailLine)
	}
	return s
}

// dataText renders a message's data as " key=value" pairs, sorted.
func dataText(d map[string]any, full bool) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		if k != "time" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		v, err := json.Marshal(d[k])
		s := string(v)
		if err != nil {
			s = fmt.Sprint(d[k])
		}
		if !full {
			s = clip(s, maxValueText)
		}
		b.WriteString(" " + k + "=" + s)
	}
	return b.String()
}

func checkText(what, text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return errors.New(what + " what? Give the text after the command")
	case len(text) > maxSayBytes:
		return fmt.Errorf("%s: %d bytes, at most %d", what, len(text), maxSayBytes)
	}
	return nil
}

func cmdUtter(c *call) error {
	b := c.srv.env.Bus
	if b == nil {
		return missing("message bus")
	}
	text := strings.Join(c.args, " ")
	if err := checkText("utter", text); err != nil {
		return err
	}
	c.s.mu.Lock()
	c.s.utterN++
	id := fmt.Sprintf("shell-%d-%d", c.s.id, c.s.utterN)
	c.s.mu.Unlock()
	done := make(chan struct{})
	var once sync.Once
	start := time.Now()
	var writeErr atomic.Value
	sub, err := b.SubscribeAll([]string{"*"}, func(_ context.Context, m bus.Message) {
		if m.Context[keyShellInput] != id {
			return
		}
		var err error
		if c.json {
			err = c.emit(m)
		} else {
			err = c.printf("  %s\n", lifecycleLine(m, time.Since(start)))
		}
		if err != nil {
			writeErr.Store(err)
		}
		if m.Type == pipeline.TopicHandled || err != nil {
			once.Do(func() { close(done) })
		}
	}, bus.WithName(fmt.Sprintf("shell-%d-utter", c.s.id)), bus.WithQueue(1024, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("utter: %w", err)
	}
	defer sub.Close()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{text}})
	m.Context[bus.KeySource] = "shell"
	m.Context[keyShellInput] = id
	if err := b.Publish(c.ctx, m); err != nil {
		return fmt.Errorf("utter: %w", err)
	}
	t := time.NewTimer(utterTimeout)
	defer t.Stop()
	select {
	case <-done:
		if err, _ := writeErr.Load().(error); err != nil {
			return err
		}
		return nil
	case <-c.ctx.Done():
		if !c.json {
			_ = c.printf("(stopped watching; the robot carries on)\n")
		}
		return context.Cause(c.ctx)
	case <-t.C:
		return fmt.Errorf("utter: no end of the lifecycle within %s", utterTimeout)
	}
}

// lifecycleLine is one lifecycle message for people, with the time since
// the utterance was sent.
func lifecycleLine(m bus.Message, since time.Duration) string {
	ms := fmt.Sprintf("%6.1f ms  ", float64(since.Microseconds())/1000)
	switch m.Type {
	case pipeline.TopicSpeak:
		return ms + "jibo says: " + strconv.Quote(m.DataString("utterance"))
	case pipeline.TopicMatched:
		return fmt.Sprintf("%s%s %s:%s via %s", ms, m.Type, m.DataString("skill_id"), m.DataString("intent_name"), m.DataString("pipeline_id"))
	case pipeline.TopicHandled:
		if e := m.DataString("error"); e != "" {
			return ms + m.Type + " error=" + strconv.Quote(e)
		}
		return ms + m.Type
	}
	return ms + m.Type + clip(dataText(m.Data, false), maxTailLine)
}

// escapeESML makes text plain words for a PLAY: nothing in it is markup.
func escapeESML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "'", "&apos;").Replace(s)
}

func cmdStop(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("stop takes no arguments")
	}
	b := c.srv.env.Bus
	if b == nil {
		return missing("bus")
	}
	if err := interrupt.Stop(c.ctx, b, "shell"); err != nil {
		return err
	}
	if c.json {
		return c.emit(map[string]any{"stopped": true})
	}
	return c.printf("stopped\n")
}

func cmdSay(c *call) error {
	a := c.srv.env.Actions
	if a == nil {
		return missing("voice")
	}
	text := strings.Join(c.args, " ")
	if err := checkText("say", text); err != nil {
		return err
	}
	res, err := a.Run(c.ctx, jcp.NewAction(jcp.Say(escapeESML(text))))
	if err != nil {
		if c.ctx.Err() != nil {
			return context.Cause(c.ctx)
		}
		return fmt.Errorf("say: %w", err)
	}
	if c.json {
		return c.emit(res)
	}
	if res.Status != jcp.StatusSucceeded {
		return fmt.Errorf("say: %s: %s", res.Status, res.Error)
	}
	return c.printf("said %q\n", text)
}

type skillReport struct {
	ID          string   `json:"id"`
	BusID       string   `json:"bus_id"`
	Version     string   `json:"version"`
	Name        string   `json:"name"`
	Safety      string   `json:"safety_level"`
	Permissions []string `json:"permissions"`
	Calls       int      `json:"recent_calls"`
	Failed      int      `json:"recent_failed"`
	Last        string   `json:"last_outcome,omitempty"`
	LastError   string   `json:"last_error,omitempty"`
}

func cmdSkills(c *call) error {
	if len(c.args) > 0 && c.args[0] == "sync" {
		return cmdSkillsSync(c)
	}
	sl := c.srv.env.Skills
	if sl == nil {
		return missing("skill host")
	}
	if len(c.args) > 0 {
		return c.usageErr("want no arguments, or sync [ID...]")
	}
	var out []skillReport
	for _, m := range sl.Skills() {
		r := skillReport{ID: m.ID, BusID: m.BusID(), Version: m.Version, Name: m.Name, Safety: string(m.SafetyLevel), Permissions: []string{}}
		for _, p := range m.Permissions {
			r.Permissions = append(r.Permissions, string(p))
		}
		if c.srv.env.Runs != nil {
			recs := c.srv.env.Runs.List(invoke.Filter{Skill: m.ID})
			r.Calls = len(recs)
			for i, rec := range recs {
				if rec.Outcome != invoke.OutcomeOK {
					r.Failed++
				}
				if i == 0 { // newest first
					r.Last, r.LastError = string(rec.Outcome), rec.Error
				}
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	notLoaded := []SkillProblem{}
	if c.srv.env.NotLoaded != nil {
		notLoaded = append(notLoaded, c.srv.env.NotLoaded()...)
	}
	if c.json {
		return c.emit(map[string]any{"skills": out, "not_loaded": notLoaded})
	}
	rows := [][]string{{"skill", "version", "safety", "permissions", "calls", "failed", "last"}}
	for _, r := range out {
		last := r.Last
		if r.LastError != "" {
			last += ": " + clip(r.LastError, 60)
		}
		rows = append(rows, []string{r.ID, r.Version, r.Safety, strings.Join(r.Permissions, ","), strconv.Itoa(r.Calls), strconv.Itoa(r.Failed), last})
	}
	for _, p := range notLoaded {
		id := p.ID
		if id == "" {
			id = p.Dir
		}
		// The reason is the point of the row: long, but kept on one line.
		rows = append(rows, []string{id, "", "", "", "", "", "not loaded: " + clip(strings.ReplaceAll(p.Error, "\n", "; "), 400)})
	}
	return c.table(rows)
}

func cmdIntents(c *call) error {
	b := c.srv.env.Bus
	if b == nil {
		return missing("message bus")
	}
	if len(c.args) > 1 {
		return c.usageErr("one skill at most")
	}
	data := map[string]any{}
	if len(c.args) == 1 {
		data["skill_id"] = strings.ReplaceAll(c.args[0], "/", ".")
	}
	ans, err := c.query(b, intent.TopicList, data)
	if err != nil {
		return err
	}
	list, _ := ans.Data["intents"].([]any)
	if c.json {
		return c.emit(map[string]any{"intents": list})
	}
	if len(list) == 0 {
		return c.printf("no intents registered%s\n", map[bool]string{true: " for " + c.argOr(0), false: ""}[len(c.args) == 1])
	}
	rows := [][]string{{"skill", "intent", "lang", "engine", "enabled", "session"}}
	for _, e := range list {
		o, _ := e.(map[string]any)
		rows = append(rows, []string{fmt.Sprint(o["skill_id"]), fmt.Sprint(o["intent_name"]), fmt.Sprint(o["lang"]),
			fmt.Sprint(o["method"]), fmt.Sprint(o["enabled"]), fmt.Sprint(o["session_id"])})
	}
	return c.table(rows)
}

func (c *call) argOr(i int) string {
	if i < len(c.args) {
		return c.args[i]
	}
	return ""
}

// query publishes topic with data and waits for its .response addressed
// back to this session.
func (c *call) query(b Bus, topic string, data map[string]any) (bus.Message, error) {
	me := fmt.Sprintf("shell-%d", c.s.id)
	got := make(chan bus.Message, 1)
	sub, err := b.SubscribeAll([]string{topic + ".response"}, func(_ context.Context, m bus.Message) {
		if m.IsFor(me) && len(m.Destinations()) > 0 {
			select {
			case got <- m:
			default:
			}
		}
	}, bus.WithName(me+"-query"))
	if err != nil {
		return bus.Message{}, err
	}
	defer sub.Close()
	q := bus.NewMessage(topic, data)
	q.Context[bus.KeySource] = me
	if err := b.Publish(c.ctx, q); err != nil {
		return bus.Message{}, fmt.Errorf("asking %s: %w", topic, err)
	}
	t := time.NewTimer(queryTimeout)
	defer t.Stop()
	select {
	case m := <-got:
		return m, nil
	case <-t.C:
		return bus.Message{}, fmt.Errorf("no answer to %s within %s", topic, queryTimeout)
	case <-c.ctx.Done():
		return bus.Message{}, context.Cause(c.ctx)
	}
}

func cmdSession(c *call) error {
	sr := c.srv.env.Sessions
	if sr == nil {
		return missing("pipeline")
	}
	if len(c.args) > 0 {
		return c.usageErr("no arguments")
	}
	view := sr.DefaultSession().Map()
	if c.json {
		return c.emit(view)
	}
	keys := make([]string, 0, len(view))
	for k := range view {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(view[k])
		if err != nil {
			v = []byte(fmt.Sprint(view[k]))
		}
		if err := c.printf("%s: %s\n", k, clip(string(v), 1000)); err != nil {
			return err
		}
	}
	if len(keys) == 0 {
		return c.printf("(the default session is empty: nothing has happened yet)\n")
	}
	return nil
}

func cmdPipeline(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("no arguments")
	}
	stages := c.srv.env.Pipeline
	var effective []string
	if sr := c.srv.env.Sessions; sr != nil {
		effective = sr.DefaultSession().Pipeline(sessionDefaults(stages))
	}
	var recent []lifecycleRecord
	if c.srv.recent != nil {
		recent = c.srv.recent.list()
	}
	if c.json {
		return c.emit(map[string]any{"stages": stages, "default_session_pipeline": effective, "recent": recent})
	}
	if err := c.printf("stages: %s\n", orNone(strings.Join(stages, " > "))); err != nil {
		return err
	}
	if len(effective) > 0 && strings.Join(effective, ",") != strings.Join(stages, ",") {
		if err := c.printf("default session's own pipeline: %s\n", strings.Join(effective, " > ")); err != nil {
			return err
		}
	}
	if len(recent) == 0 {
		return c.printf("recent utterances: none yet\n")
	}
	rows := [][]string{{"time", "utterance", "outcome", "stage", "ms"}}
	for _, r := range recent {
		rows = append(rows, []string{r.Time.Format("15:04:05"), strconv.Quote(clip(r.Utterance, 48)), r.Outcome, r.Stage, fmt.Sprintf("%.1f", r.Ms)})
	}
	if err := c.printf("recent utterances, newest last:\n"); err != nil {
		return err
	}
	return c.table(rows)
}

func cmdLog(c *call) error {
	book := c.srv.env.Logs
	if book == nil {
		return missing("log book")
	}
	level, follow, n := slog.LevelInfo, false, 50
	for i := 0; i < len(c.args); i++ {
		switch a := c.args[i]; a {
		case "follow":
			follow = true
		case "-n":
			if i+1 == len(c.args) {
				return c.usageErr("-n needs a number")
			}
			i++
			v, err := strconv.Atoi(c.args[i])
			if err != nil || v < 0 || v > DefaultLogCapacity {
				return c.usageErr("-n %q: want 0..%d", c.args[i], DefaultLogCapacity)
			}
			n = v
		default:
			if err := level.UnmarshalText([]byte(a)); err != nil {
				return c.usageErr("%q is not a level (debug, info, warn, error) nor follow", a)
			}
		}
	}
	var entries <-chan LogEntry
	var dropped func() uint64
	if follow {
		// Follow before printing the backlog, so nothing falls between.
		var stop func()
		var err error
		if entries, dropped, stop, err = book.Follow(level); err != nil {
			return err
		}
		defer stop()
	}
	// -n 0 is none of the backlog (follow then shows only what is new);
	// the book's 0 would be all of it.
	if n > 0 {
		for _, e := range book.Recent(level, n) {
			if err := c.logLine(e); err != nil {
				return err
			}
		}
	}
	if !follow {
		return nil
	}
	if !c.json {
		if err := c.printf("(following; Ctrl-C stops)\n"); err != nil {
			return err
		}
	}
	for {
		select {
		case e := <-entries:
			if err := c.logLine(e); err != nil {
				return err
			}
		case <-c.ctx.Done():
			if d := dropped(); d > 0 && !c.json {
				_ = c.printf("(%d records dropped: the terminal is slower than the log)\n", d)
			}
			return context.Cause(c.ctx)
		}
	}
}

func (c *call) logLine(e LogEntry) error {
	if c.json {
		return c.emit(e)
	}
	return c.printf("%s\n", e.Line())
}

// cmdSkillsSync makes the running skills match what is installed in the
// state folder. It changes nothing the state folder does not say, so it
// needs no technician mode: installing is writing the folder.
func cmdSkillsSync(c *call) error {
	in := c.srv.env.Installed
	if in == nil {
		return missing("state folder with installed skills")
	}
	ids := c.args[1:]
	if len(ids) > maxSyncIDs {
		return c.usageErr("at most %d skill ids", maxSyncIDs)
	}
	res, err := in.SyncSkills(c.ctx, ids)
	if err != nil {
		return err
	}
	if res.Changes == nil {
		res.Changes = []SkillChange{}
	}
	if c.json {
		return c.emit(res)
	}
	if len(res.Changes) == 0 {
		return c.printf("no skills installed in %s\n", res.StateDir)
	}
	for _, ch := range res.Changes {
		if err := c.printf("%s\n", ch); err != nil {
			return err
		}
	}
	return nil
}

// String says what happened to the skill, for people.
func (ch SkillChange) String() string {
	switch ch.Change {
	case "updated":
		if ch.Previous == ch.Version {
			return "reloaded " + ch.ID + " " + ch.Version
		}
		return "updated " + ch.ID + " " + ch.Previous + " → " + ch.Version
	case "unloaded":
		return "unloaded " + ch.ID + " (was " + ch.Previous + ")"
	case "purged":
		return "deleted the data " + ch.ID + " stored"
	case "not loaded":
		return "not loaded " + ch.ID + ": " + ch.Error
	}
	return strings.TrimSpace(ch.Change + " " + ch.ID + " " + ch.Version)
}

// maxSyncIDs bounds the ids one skills sync names.
const maxSyncIDs = 64
