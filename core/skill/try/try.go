// Package try plays a skill turn by turn without a robot, as the robot
// would: a launch from something said (matched against the skill's own
// intents) or from a request file, then each answer understood with the
// rules the skill's question listens with (as the skill host does: the
// robot's answer rules, Jibo's shared rule names, the skill's own) and
// sent as a LISTEN_UPDATE with the session the skill kept. Each turn
// reports the request, the response, the SLIMs it would play and the
// graph's node trace. `jibod skills try` is its command line.
package try

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Config configures a Player.
type Config struct {
	// Skill is the skill to play.
	Skill skill.Skill
	// Lang is the language of the turns; "" means en-US.
	Lang string
	// NodeNames names a graph skill's nodes by id; nil asks the skill
	// (a NodeNames() or Graph() method) and otherwise shows ids alone.
	NodeNames map[int]string
	// Logger; nil means a discarding one.
	Logger *slog.Logger
}

// Player plays one skill's conversations.
type Player struct {
	skill   skill.Skill
	busID   string
	lang    string
	rules   *skill.AnswerRules
	intents *intent.TemplateEngine
	names   map[int]string
	// kept is the skill's session since its last action; listen the rules
	// of its pending question (nil when it asked none).
	kept   protocol.SkillData
	listen []string
	turns  int
}

// New checks the skill as the robot's host would (its answer rules
// compile, its questions name rules there are) and loads its intents.
func New(cfg Config) (*Player, error) {
	if cfg.Skill == nil {
		return nil, errors.New("try: no skill")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := cfg.Skill.Manifest()
	if m == nil {
		return nil, errors.New("try: the skill has no manifest")
	}
	p := &Player{skill: cfg.Skill, busID: m.BusID(), lang: cfg.Lang, names: cfg.NodeNames, kept: protocol.Skill(m.BusID())}
	if p.lang == "" {
		p.lang = "en-US"
	}
	var err error
	if p.rules, err = skill.NewAnswerRules(log); err != nil {
		return nil, err
	}
	if rs, ok := cfg.Skill.(skill.RuleSkill); ok && rs.Rules() != nil {
		if err := p.rules.Add(p.busID, rs.Rules()); err != nil {
			return nil, fmt.Errorf("skill %s: %w", m.ID, err)
		}
	}
	if q, ok := cfg.Skill.(skill.Questioner); ok {
		if err := p.rules.Check(q.ListenRules()...); err != nil {
			return nil, fmt.Errorf("skill %s: its questions: %w", m.ID, err)
		}
	}
	if p.names == nil {
		switch s := cfg.Skill.(type) {
		case interface{ NodeNames() map[int]string }:
			p.names = s.NodeNames()
		case interface{ Graph() *graph.Graph }:
			if g := s.Graph(); g != nil {
				p.names = local.NodeNames(g)
			}
		}
	}
	p.intents = intent.NewTemplateEngine(intent.EngineOptions{Logger: log})
	if fsys := cfg.Skill.Locale(); fsys != nil {
		loc, err := intent.LoadLocale(fsys, ".")
		if err != nil {
			return nil, fmt.Errorf("skill %s: locale: %w", m.ID, err)
		}
		for _, def := range loc.TemplateIntents("", p.busID) {
			if _, err := p.intents.Register(def); err != nil {
				return nil, fmt.Errorf("skill %s: intent %s: %w", m.ID, def.IntentName, err)
			}
		}
	}
	return p, nil
}

// Waiting returns the rules of the question the skill waits for an
// answer to; nil when it asked none.
func (p *Player) Waiting() []string { return slices.Clone(p.listen) }

// SLIM is what one SLIM of an action plays.
type SLIM struct {
	// ESML is what it says.
	ESML string `json:"esml"`
	// Listen are the rules a question listens with; nil for none.
	Listen []string `json:"listen,omitempty"`
	// PromptID, MIMID and MIMType are the Slimmer's meta, when a MIM made it.
	PromptID string `json:"prompt_id,omitempty"`
	MIMID    string `json:"mim_id,omitempty"`
	MIMType  string `json:"mim_type,omitempty"`
}

// Step is one node the turn's session passed: its id, name and the
// transition it left by ("" for the node the skill waits in).
type Step struct {
	NodeID     int    `json:"node_id"`
	Node       string `json:"node,omitempty"`
	Transition string `json:"transition,omitempty"`
}

// Turn is one request and its response.
type Turn struct {
	// N counts the turns, from 1.
	N int `json:"turn"`
	// Heard is what was said ("" for silence or a request file).
	Heard string `json:"heard"`
	// Request is what the skill was sent.
	Request *protocol.Request `json:"request"`
	// Response is what it answered.
	Response *protocol.Response `json:"response"`
	// Intent and Entities are what the request's NLU carried.
	Intent   string         `json:"intent,omitempty"`
	Entities map[string]any `json:"entities,omitempty"`
	// SLIMs are what the action plays, in order.
	SLIMs []SLIM `json:"slims,omitempty"`
	// Trace is the session's node trace after the turn.
	Trace []Step `json:"trace,omitempty"`
	// Listen are the rules the skill now waits for an answer with.
	Listen []string `json:"listen,omitempty"`
	// Final says the skill is done.
	Final bool `json:"final"`
	// Redirect names the skill a SKILL_REDIRECT hands over to.
	Redirect string `json:"redirect,omitempty"`
	// Error is an ERROR response's message.
	Error string `json:"error,omitempty"`
}

// ErrNotUnderstood is a launch utterance none of the skill's intents
// matches.
var ErrNotUnderstood = errors.New("none of the skill's intents understands it")

// Launch starts the skill from what someone said: the best of its
// intents that matches (slots become entities). A skill without intents
// (a MIM) launches from anything, with intent null.
func (p *Player) Launch(ctx context.Context, said string) (*Turn, error) {
	nlu := protocol.NLUFromSlots("", nil, []string{"launch"})
	nlu.Intent, nlu.Entities = nil, nil
	if regs := p.intents.Registrations(""); len(regs) > 0 {
		r := p.intents.Match(said, p.lang, "")
		if r == nil {
			var names []string
			for _, reg := range regs {
				names = append(names, reg.IntentName)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("%q: %w (intents: %s)", said, ErrNotUnderstood, strings.Join(slices.Compact(names), ", "))
		}
		nlu = protocol.NLUFromSlots(r.IntentName, r.Slots, []string{"launch"})
	}
	p.kept, p.listen = protocol.Skill(p.busID), nil
	req := protocol.NewListenLaunch(p.context(protocol.Skill(p.busID)), nlu, protocol.ASRResult{Text: said, Confidence: 1}, nil)
	return p.send(ctx, said, req)
}

// Answer sends what someone said as the answer to the skill's question:
// understood with the question's rules, as a LISTEN_UPDATE carrying the
// session the skill kept. "" is silence (no input).
func (p *Player) Answer(ctx context.Context, said string) (*Turn, error) {
	if p.listen == nil {
		return nil, errors.New("the skill asked nothing: launch it again")
	}
	nlu := p.rules.Understand(said, p.lang, p.listen)
	asr := protocol.ASRResult{Text: said, Confidence: 1}
	if strings.TrimSpace(said) == "" {
		asr = protocol.ASRResult{Annotation: protocol.AnnotationSOSTimeout}
	}
	req := protocol.NewListenUpdate(p.context(p.kept), nlu, asr)
	return p.send(ctx, said, req)
}

// Send sends a request as it is written (a request file). The skill's id
// and the robot's are filled in where the file leaves them out, and a
// LISTEN_UPDATE without a session gets the one the skill kept; a request
// for another skill is refused.
func (p *Player) Send(ctx context.Context, req *protocol.Request) (*Turn, error) {
	if req == nil || req.Data == nil {
		return nil, errors.New("the request has no data")
	}
	if id := req.Data.Skill.Name(); id != "" && id != p.busID {
		return nil, fmt.Errorf("the request is for skill %q, not %s", id, p.busID)
	}
	if req.Data.Skill.ID == nil {
		id := p.busID
		req.Data.Skill.ID = &id
	}
	if req.Type == protocol.TypeListenUpdate && req.Data.Skill.Session == nil {
		req.Data.Skill.Session = p.kept.Session
	}
	g := &req.Data.General
	if g.AccountID == "" {
		g.AccountID = "local"
	}
	if g.RobotID == "" {
		g.RobotID = "Try-Jibo-Local-Robot"
	}
	if g.Lang == "" {
		g.Lang = p.lang
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("the request: %w", err)
	}
	heard := ""
	if req.Data.Result.ASR != nil {
		heard = req.Data.Result.ASR.Text
	}
	return p.send(ctx, heard, req)
}

// context is a request's context for skill data sd.
func (p *Player) context(sd protocol.SkillData) protocol.Context {
	return protocol.Context{General: protocol.GeneralData{AccountID: "local", RobotID: "Try-Jibo-Local-Robot",
		Lang: p.lang, Release: "1.9.2"}, Skill: sd}
}

func (p *Player) send(ctx context.Context, heard string, req *protocol.Request) (*Turn, error) {
	p.turns++
	t := &Turn{N: p.turns, Heard: heard, Request: req}
	if n := req.Data.Result.NLU; n != nil {
		t.Intent = n.IntentName()
		if len(n.Entities) > 0 {
			t.Entities = n.Entities
		}
	}
	resp, err := p.answer(ctx, t.N, req)
	if err != nil {
		return nil, err
	}
	t.Response = resp
	p.listen = nil
	switch resp.Type {
	case protocol.TypeError:
		t.Error, t.Final = resp.Error.Message, true
	case protocol.TypeSkillRedirect:
		t.Redirect, t.Final = resp.Redirect.SkillID, true
	case protocol.TypeSkillAction:
		a := resp.Action
		p.kept = a.Skill
		t.Final = a.Final != nil && *a.Final
		if a.Skill.Session != nil {
			t.Trace = p.trace(a.Skill.Session.Trace)
		}
		if len(a.Action) > 0 && string(a.Action) != "null" {
			act, err := jcp.ParseAction(a.Action)
			if err != nil {
				return nil, fmt.Errorf("turn %d: the skill's action: %w", t.N, err)
			}
			jcp.EachSLIM(act.Behavior, func(s *jcp.SLIM) { t.SLIMs = append(t.SLIMs, slimOf(s)) })
			if n := len(t.SLIMs); n > 0 && t.SLIMs[n-1].Listen != nil {
				p.listen = t.SLIMs[n-1].Listen
			}
		} else {
			t.Final = true // no action: the skill is done
		}
	default:
		return nil, fmt.Errorf("turn %d: unexpected response type %q", t.N, resp.Type)
	}
	t.Listen = slices.Clone(p.listen)
	return t, nil
}

// answer is the skill's answer to req, validated once on its way as the
// robot's host has it: by the skill when it answers checked (BaseSkill, a
// package's decoder), else here.
func (p *Player) answer(ctx context.Context, turn int, req *protocol.Request) (*protocol.Response, error) {
	if cs, ok := p.skill.(skill.CheckedSkill); ok {
		c, err := cs.HandleChecked(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", turn, err)
		}
		if c.Response() == nil {
			return nil, fmt.Errorf("turn %d: the skill's answer: no response", turn)
		}
		return c.Response(), nil
	}
	resp, err := p.skill.Handle(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("turn %d: %w", turn, err)
	}
	c, err := protocol.CheckResponse(resp)
	if err != nil {
		return nil, fmt.Errorf("turn %d: the skill's answer: %w", turn, err)
	}
	return c.Response(), nil
}

func (p *Player) trace(tr []protocol.TraceEntry) []Step {
	out := make([]Step, len(tr))
	for i, e := range tr {
		out[i] = Step{NodeID: e.NodeID, Node: p.names[e.NodeID]}
		if e.Transition != nil {
			out[i].Transition = *e.Transition
		}
	}
	return out
}

func slimOf(s *jcp.SLIM) SLIM {
	var out SLIM
	if s.Play != nil {
		out.ESML = s.Play.ESML
		var meta struct {
			PromptID string `json:"prompt_id"`
			MIMID    string `json:"mim_id"`
			MIMType  string `json:"mim_type"`
		}
		if len(s.Play.Meta) > 0 && json.Unmarshal(s.Play.Meta, &meta) == nil {
			out.PromptID, out.MIMID, out.MIMType = meta.PromptID, meta.MIMID, meta.MIMType
		}
	}
	if s.Listen != nil {
		out.Listen = slices.Clone(s.Listen.Contexts)
	}
	return out
}

// Summary says in a few words what a turn did, for people.
func (t *Turn) Summary() string {
	switch {
	case t.Error != "":
		return "ERROR: " + t.Error
	case t.Redirect != "":
		return "redirects to " + t.Redirect
	case len(t.Listen) > 0:
		return "asks, listening with " + strings.Join(t.Listen, ", ")
	case t.Final:
		return "done"
	}
	return "goes on without a question"
}

// MIMSkill is one MIM played as Jibo's MIMFactory would in a graph skill
// of its own: a question with its no-match and no-input ladders, or an
// announcement.
type MIMSkill struct {
	m     *mim.MIM
	graph *graph.Skill
}

// MIMSkillID is the id a played MIM runs under.
const MIMSkillID = "try/mim"

// NewMIMSkill makes a skill of one MIM.
func NewMIMSkill(m *mim.MIM) (*MIMSkill, error) {
	g, err := factory.MIM(m.MimID(), factory.Options{MIMs: factory.MIMs(m), Final: factory.Final(true)})
	if err != nil {
		return nil, fmt.Errorf("MIM %s: %w", m.MimID(), err)
	}
	gs, err := graph.NewSkill(registry.BusID(MIMSkillID), g, graph.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("MIM %s: %w", m.MimID(), err)
	}
	return &MIMSkill{m: m, graph: gs}, nil
}

// Manifest declares the played MIM.
func (s *MIMSkill) Manifest() *registry.Manifest {
	return &registry.Manifest{ID: MIMSkillID, Version: "1.0.0", Name: "MIM " + s.m.MimID(),
		Description: "A MIM played by jibod skills try.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermListen}, SafetyLevel: registry.SafetyLow}
}

// Locale is nil: a MIM launches without intents.
func (s *MIMSkill) Locale() fs.FS { return nil }

// ListenRules is the MIM's rule when it asks.
func (s *MIMSkill) ListenRules() []string {
	if s.m.Type.Listens() {
		return []string{s.m.RuleName}
	}
	return nil
}

// Graph is the MIM factory's graph.
func (s *MIMSkill) Graph() *graph.Graph { return s.graph.Graph() }

// Handle answers one request.
func (s *MIMSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.graph.Handle(ctx, req)
}

// HandleChecked answers one request, the answer checked by the graph.
func (s *MIMSkill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	return s.graph.HandleChecked(ctx, req)
}

// RunOptions configure Run.
type RunOptions struct {
	// JSON prints each turn as a JSON object on a line of its own.
	JSON bool
	// Prompt, when set, is printed before reading what is said (a person
	// at a terminal).
	Prompt string
	// ReadFile reads a request file named by an "@FILE" line; nil refuses
	// them.
	ReadFile func(name string) ([]byte, error)
}

// MaxLineBytes bounds one line Run reads.
const MaxLineBytes = 64 << 10

// Run plays the skill from lines read from in, printing each turn to out:
// a line is what someone says (the launch, then each answer while the
// skill asks; once it is done the next line launches it again), an empty
// line is silence, "@FILE" sends a request file as written, and lines
// starting with "#" are comments. A skill without intents (a MIM) is
// launched before the first line. Run returns at the end of in, or at
// the first turn that fails.
func Run(ctx context.Context, p *Player, in io.Reader, out io.Writer, opts RunOptions) error {
	show := func(t *Turn) error {
		if opts.JSON {
			b, err := json.Marshal(t)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(out, "%s\n", b)
			return err
		}
		_, err := io.WriteString(out, t.Text())
		return err
	}
	if len(p.intents.Registrations("")) == 0 {
		t, err := p.Launch(ctx, "")
		if err != nil {
			return err
		}
		if err := show(t); err != nil {
			return err
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), MaxLineBytes)
	for {
		if opts.Prompt != "" {
			fmt.Fprint(out, opts.Prompt)
		}
		if !sc.Scan() {
			return sc.Err()
		}
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		var t *Turn
		var err error
		switch {
		case strings.HasPrefix(line, "@"):
			if opts.ReadFile == nil {
				return errors.New("request files are not read here")
			}
			var data []byte
			if data, err = opts.ReadFile(strings.TrimPrefix(line, "@")); err != nil {
				return err
			}
			var req *protocol.Request
			if req, err = protocol.DecodeRequest(data); err != nil {
				return fmt.Errorf("%s: %w", line, err)
			}
			t, err = p.Send(ctx, req)
		case p.listen != nil:
			t, err = p.Answer(ctx, line)
		case line == "":
			continue // nothing asked, nothing said
		default:
			t, err = p.Launch(ctx, line)
			if errors.Is(err, ErrNotUnderstood) { // said again, differently
				if opts.JSON {
					b, _ := json.Marshal(map[string]string{"heard": line, "error": err.Error()})
					fmt.Fprintf(out, "%s\n", b)
				} else {
					fmt.Fprintf(out, "  not understood: %v\n", err)
				}
				continue
			}
		}
		if err != nil {
			return err
		}
		if err := show(t); err != nil {
			return err
		}
	}
}

// Text is the turn as people read it: what was said and understood, each
// SLIM played, the node trace and what the skill does next.
func (t *Turn) Text() string {
	var b strings.Builder
	kind := "launch"
	if t.Request.Type != protocol.TypeListenLaunch {
		kind = strings.ToLower(t.Request.Type)
		if t.Request.Type == protocol.TypeListenUpdate {
			kind = "answer"
		}
	}
	heard := fmt.Sprintf("%q", t.Heard)
	if t.Heard == "" && kind == "answer" {
		heard = "(silence)"
	}
	understood := "no intent"
	if t.Intent != "" {
		understood = "intent " + t.Intent
	}
	if len(t.Entities) > 0 {
		b, _ := json.Marshal(t.Entities)
		understood += " " + string(b)
	}
	fmt.Fprintf(&b, "turn %d: %s %s: %s\n", t.N, kind, heard, understood)
	for _, s := range t.SLIMs {
		var from []string
		if s.PromptID != "" {
			from = append(from, s.PromptID)
		}
		if s.MIMID != "" {
			from = append(from, "MIM "+s.MIMID)
		}
		src := ""
		if len(from) > 0 {
			src = " (" + strings.Join(from, ", ") + ")"
		}
		fmt.Fprintf(&b, "  SLIM%s: %s\n", src, s.ESML)
		if s.Listen != nil {
			fmt.Fprintf(&b, "    listens with %s\n", strings.Join(s.Listen, ", "))
		}
	}
	if len(t.Trace) > 0 {
		steps := make([]string, len(t.Trace))
		for i, s := range t.Trace {
			name := strconv.Itoa(s.NodeID)
			if s.Node != "" {
				name += " " + s.Node
			}
			if s.Transition != "" {
				name += " -" + s.Transition + "->"
			}
			steps[i] = name
		}
		fmt.Fprintf(&b, "  trace: %s\n", strings.Join(steps, " "))
	}
	fmt.Fprintf(&b, "  => %s\n", t.Summary())
	return b.String()
}
