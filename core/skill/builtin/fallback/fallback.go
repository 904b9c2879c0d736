// Package fallback is the robot's last word: the fallback skill
// (FALLBACK-1) that answers what nothing else understood, so the robot is
// never silent.
//
// It registers as a fallback skill at Priority, after every other stage
// (OVOS's "unknown" fallback sits there too), and answers every ping with
// can_handle: true. Dispatched as jibo.fallback:fallback, it:
//
//   - asks, when the robot half understood: a guess too unsure to act on
//     becomes "Were you asking about the timer?" (yes launches that skill
//     with what was said), and a request missing a required part becomes
//     "What duration did you have in mind?" (the answer completes it);
//   - asks about a fragment that only names a skill's topic ("about my
//     timer" → "Were you asking about the timer?"); yes does nothing the
//     person did not ask for: the robot says what the skill can do ("I
//     can set timers, say how much time is left, … What would you
//     like?") and takes the answer as the request, that skill's intents
//     first;
//   - otherwise says it did not understand, in its own voice, with an
//     earcon, never the same line twice in a row, and now and then offers
//     a next step: "You can ask me what I can do." — on the first miss in a
//     while, and on every other miss of a run of them.
package fallback

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/fallback"
	ID         = "jibo.fallback"
)

// Priority is the skill's fallback priority (FALLBACK-1 §3.3): the last of
// all, in the pipeline's fallback-unknown stage after the cloud hub's.
const Priority = pipeline.UnknownPriority

// IntentFallback is the reserved intent a fallback is dispatched with
// (PIPE-21).
const IntentFallback = "fallback"

// Earcon is the sound the robot makes before saying it did not understand.
const Earcon = "boing"

// AnswerRule is the listen context of the skill's questions: yes, no, or
// (for a missing part) anything, taken as the part.
const AnswerRule = skill.GlobalsOwner + "/yes_no"

// Timings of the next-step hint.
const (
	// HintAgain is how long after a hint the next miss offers it again.
	HintAgain = 10 * time.Minute
	// RunGap ends a run of misses: a miss longer than this after the last
	// one starts a new run.
	RunGap = 2 * time.Minute
)

// maxWhat bounds what the robot repeats of a slot's name in its question,
// in runes.
const maxWhat = 60

//go:embed locale
var files embed.FS

// Manifest is what the skill declares: it speaks and plays its earcon.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.0.0", Name: "Fallback",
		Description: "Says when I did not understand, and asks when I half understood.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermSound, registry.PermListen},
		Timeout:     2 * time.Second,
		SafetyLevel: registry.SafetyLow,
	}
}

// Guess is what the robot half understood.
type Guess struct {
	// SkillID (bus id) and IntentName are the intent it would launch.
	SkillID, IntentName string
	// Slots are the slots it would launch with.
	Slots map[string]string
	// Missing are required slots that were not said; empty for a guess
	// that was too unsure to act on.
	Missing []string
	// Topic, set on a topic guess, is the words that named the skill's
	// topic ("timer"); IntentName is then empty: the words asked nothing
	// of any intent.
	Topic string
	// Determiner is the determiner said before Topic ("my"), "" for none.
	Determiner string
}

// Guesser finds what an utterance might have meant, when nothing matched
// it for sure.
type Guesser interface {
	Guess(ctx context.Context, utterance, lang string) (Guess, bool)
}

// Understander is a Guesser that also understands an answer as a
// request: the best intent it would act on, or a required part to ask
// for (Guess.Missing), among skillID's intents first and then all.
type Understander interface {
	Understand(ctx context.Context, utterance, lang, skillID string) (Guess, bool)
}

// Options configure the skill.
type Options struct {
	// Guesser, if set, lets the robot ask when it half understood; if it
	// is an Understander too, the answer to a topic's choices is
	// understood as a request.
	Guesser Guesser
	// Skills lists the installed skills' manifests, to name a guess's
	// skill; nil names none.
	Skills func() []*registry.Manifest
	// Offline, if set, reports that the cloud that might have understood
	// cannot be reached now.
	Offline func() bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand picks among phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill is the fallback skill.
type Skill struct {
	opts    Options
	locale  *kit.Locale
	handler *base.Skill

	mu       sync.Mutex
	lastLine string    // the last no-match line said
	lastMiss time.Time // when the last no-match was said
	run      int       // misses in the present run
	hinted   time.Time // when the hint was last offered
	hintedAt int       // the run position of the last hint
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill.
func New(opts Options) (*Skill, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Skills == nil {
		opts.Skills = func() []*registry.Manifest { return nil }
	}
	sub, err := fs.Sub(files, "locale")
	if err != nil {
		return nil, fmt.Errorf("fallback skill: %w", err)
	}
	s := &Skill{opts: opts}
	if s.locale, err = kit.LoadLocale(sub, opts.Rand); err != nil {
		return nil, fmt.Errorf("fallback skill: %w", err)
	}
	if s.handler, err = base.New(ID, s.handle, base.Options{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("fallback skill: %w", err)
	}
	return s, nil
}

// Manifest returns the skill's manifest.
func (s *Skill) Manifest() *registry.Manifest { return Manifest() }

// Locale is the skill's dialogs; it registers no intents (fallback is
// reserved, PIPE-21).
func (s *Skill) Locale() fs.FS { return s.locale.FS() }

// Handle answers a request.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.handler.Handle(ctx, req)
}

// HandleChecked is Handle with the answer as BaseSkill checked it.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	return s.handler.HandleChecked(ctx, req)
}

// asked is what the skill keeps while it waits for an answer.
type asked struct {
	SkillID   string            `json:"skill"`
	Intent    string            `json:"intent"`
	Slots     map[string]string `json:"slots,omitempty"`
	Slot      string            `json:"slot,omitempty"` // the part asked for; "" asks yes or no
	Utterance string            `json:"utterance"`
	// Topic is the topic asked about as said ("your timer"); Step is stepTopic while "Were you
	// asking about the timer?" waits for yes, stepRequest while "What would
	// you like?" waits for the request.
	Topic string `json:"topic,omitempty"`
	Step  string `json:"step,omitempty"`
	// Named is the topic's words as said, without a determiner ("timer").
	Named string `json:"named,omitempty"`
}

// Steps of a topic's questions.
const (
	stepTopic   = "topic"
	stepRequest = "request"
)

func (s *Skill) handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	lang := kit.Lang(req)
	said := ""
	if a := req.Data.Result.ASR; a != nil {
		said = a.Text
	}
	switch req.Type {
	case protocol.TypeListenLaunch:
		if s.opts.Guesser != nil && strings.TrimSpace(said) != "" {
			if g, ok := s.opts.Guesser.Guess(ctx, said, lang); ok && g.SkillID != "" && g.SkillID != ID {
				if resp, err := s.ask(req, lang, g, said); resp != nil || err != nil {
					return resp, err
				}
			}
		}
		return s.noMatch(req, lang)
	case protocol.TypeListenUpdate:
		return s.answer(ctx, req, lang, said)
	}
	return nil, fmt.Errorf("answers LISTEN_LAUNCH and LISTEN_UPDATE, not %s", req.Type)
}

// ask asks about a guess: which part is missing, or whether it is what
// was meant. nil, nil when there is nothing sensible to ask.
func (s *Skill) ask(req *protocol.Request, lang string, g Guess, said string) (*protocol.Response, error) {
	q := asked{SkillID: g.SkillID, Intent: g.IntentName, Slots: g.Slots, Utterance: said}
	var text string
	var err error
	switch {
	case len(g.Missing) > 0:
		q.Slot = g.Missing[0]
		text, err = s.locale.Render(lang, "which_slot", map[string]string{"slot": spoken(q.Slot)})
	case g.Topic != "":
		if s.manifest(g.SkillID) == nil {
			return nil, nil
		}
		q.Topic, q.Step, q.Named = spokenTopic(g.Determiner, clip(g.Topic)), stepTopic, clip(g.Topic)
		text, err = s.locale.Render(lang, "confirm_topic", map[string]string{"topic": q.Topic})
	default:
		what := s.about(g.SkillID)
		if what == "" {
			return nil, nil
		}
		text, err = s.locale.Render(lang, "confirm", map[string]string{"what": what})
	}
	if err != nil {
		return nil, err
	}
	return s.question(req, q, text)
}

// question asks text and keeps q until the answer.
func (s *Skill) question(req *protocol.Request, q asked, text string) (*protocol.Response, error) {
	data, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("keeping the question: %w", err)
	}
	sd := protocol.Skill(ID)
	sd.Session = &protocol.Session{ID: sessionID(), Data: data}
	return base.ActionResponse(req, sd, jcp.NewAction(jcp.Question(esml(text), AnswerRule)), false)
}

// offer answers yes to "Were you asking about the timer?": it says what
// the skill can do and asks which, acting on nothing yet.
func (s *Skill) offer(req *protocol.Request, lang string, q asked) (*protocol.Response, error) {
	q.Step = stepRequest
	var text string
	var err error
	if a := skill.Abilities(s.manifest(q.SkillID)); a != "" {
		text, err = s.locale.Render(lang, "choices", map[string]string{"abilities": a})
	} else {
		text, err = s.locale.Render(lang, "choices_unknown", map[string]string{"topic": q.Topic})
	}
	if err != nil {
		return nil, err
	}
	return s.question(req, q, text)
}

// request takes an answer to a topic's question as the request itself:
// the topic's skill's intents first, then any. An answer not understood
// as said is tried again with "it" or "one" as the topic ("cancel it" →
// "cancel the timer"), then guessed at and asked about, unless the guess
// is the topic just asked about. A required part not said is asked for;
// what is still not understood is let go.
func (s *Skill) request(ctx context.Context, req *protocol.Request, sd protocol.SkillData, lang string, q asked, said string) (*protocol.Response, error) {
	u, ok := s.opts.Guesser.(Understander)
	if !ok {
		return s.say(req, sd, lang, "still_not")
	}
	for _, text := range readings(said, q.Named) {
		if g, ok := u.Understand(ctx, text, lang, q.SkillID); ok && g.SkillID != "" && g.SkillID != ID && g.IntentName != "" {
			if len(g.Missing) > 0 {
				return s.ask(req, lang, g, text)
			}
			nlu := protocol.NLUFromSlots(g.IntentName, g.Slots, nil)
			asr := protocol.ASRResult{Text: text, Confidence: 1}
			return base.RedirectResponse(req, sd, base.Redirect{SkillID: g.SkillID, NLU: &nlu, ASR: &asr})
		}
	}
	if g, ok := s.opts.Guesser.Guess(ctx, said, lang); ok && g.SkillID != "" && g.SkillID != ID && !(g.Topic != "" && g.SkillID == q.SkillID) {
		if resp, err := s.ask(req, lang, g, said); resp != nil || err != nil {
			return resp, err
		}
	}
	return s.say(req, sd, lang, "still_not")
}

// readings are what an answer may say: as said, then, when it says "it"
// or "one" and a topic was named, with that word as the topic after each
// determiner a template may say it with.
func readings(said, named string) []string {
	out := []string{said}
	words := strings.Fields(said)
	at := slices.IndexFunc(words, func(w string) bool {
		w = strings.ToLower(strings.Trim(w, ",.!?;:"))
		return w == "it" || w == "one"
	})
	if named == "" || at < 0 {
		return out
	}
	for _, det := range []string{"the", "my", "a"} {
		w := slices.Clone(words)
		w[at] = det + " " + named
		out = append(out, strings.Join(w, " "))
	}
	return out
}

// answer takes the answer to the skill's question: yes launches the guess,
// the missing part completes it, no (or silence) lets it go.
func (s *Skill) answer(ctx context.Context, req *protocol.Request, lang, said string) (*protocol.Response, error) {
	sd := protocol.Skill(ID)
	var q asked
	if ses := req.Data.Skill.Session; ses == nil || json.Unmarshal(ses.Data, &q) != nil || q.SkillID == "" {
		return nil, errors.New("an answer, but no question was asked")
	}
	intent := req.Data.Result.NLU.IntentName()
	switch {
	case strings.TrimSpace(said) == "":
		return protocol.NewSkillEnd(req, sd), nil // no answer: the question lapses quietly
	case intent == "no":
		return s.say(req, sd, lang, "never_mind")
	case q.Step == stepTopic && intent == "yes":
		return s.offer(req, lang, q)
	case q.Step != "":
		// Not yes or no alone: what was said, after a yes or no it opens
		// with, is the request ("yes, how long is left").
		lead, rest := leadingAnswer(lang, said)
		switch {
		case rest != "":
			return s.request(ctx, req, sd, lang, q, rest)
		case lead == "no":
			return s.say(req, sd, lang, "never_mind")
		case lead == "yes" && q.Step == stepTopic:
			return s.offer(req, lang, q)
		}
		return s.request(ctx, req, sd, lang, q, said)
	case q.Slot == "" && intent != "yes":
		return s.say(req, sd, lang, "still_not")
	}
	slots := map[string]string{}
	for k, v := range q.Slots {
		slots[k] = v
	}
	if q.Slot != "" {
		slots[q.Slot] = strings.TrimSpace(said)
	}
	nlu := protocol.NLUFromSlots(q.Intent, slots, nil)
	asr := protocol.ASRResult{Text: q.Utterance, Confidence: 1}
	return base.RedirectResponse(req, sd, base.Redirect{SkillID: q.SkillID, NLU: &nlu, ASR: &asr})
}

// spokenTopic is a topic as the robot asks about it: with the determiner
// said, from the robot's side ("your name" → "my name", "my timer" →
// "your timer"), "the" when none was.
func spokenTopic(det, topic string) string {
	switch strings.ToLower(det) {
	case "":
		det = "the"
	case "my":
		det = "your"
	case "your":
		det = "my"
	}
	return strings.ToLower(det) + " " + topic
}

// leadingAnswer splits an answer that opens with a one-word yes or no of
// the yes/no rule ("Yeah, how long is left?") into that intent and the
// rest as said; "" and said when it does not open with one.
func leadingAnswer(lang, said string) (lead, rest string) {
	said = strings.TrimSpace(said)
	first, after, _ := strings.Cut(said, " ")
	w := strings.ToLower(strings.TrimRight(first, ",.!?;:"))
	lead, ok := skill.YesNoWords(lang)[w]
	if !ok {
		return "", said
	}
	return lead, strings.TrimSpace(strings.TrimLeft(after, ",.!?;: "))
}

// noMatch says the robot did not understand, with its earcon and, now and
// then, the next step.
func (s *Skill) noMatch(req *protocol.Request, lang string) (*protocol.Response, error) {
	d, err := s.locale.Dialogs(lang)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.lastMiss) > RunGap {
		s.run, s.hintedAt = 0, 0
	}
	s.run++
	s.lastMiss = now
	name := "no_match"
	if s.opts.Offline != nil && s.opts.Offline() {
		name = "offline"
	}
	line, err := d.RenderOther(name, nil, s.lastLine)
	if err != nil {
		return nil, err
	}
	s.lastLine = line
	text := "<sfx name='" + Earcon + "'/>" + esml(line)
	// The first miss in a while, and every other miss of a run, offer
	// the next step; the rest do not repeat it.
	if s.hinted.IsZero() || now.Sub(s.hinted) > HintAgain || s.run-s.hintedAt >= 2 {
		hint, err := d.Render("hint", nil)
		if err != nil {
			return nil, err
		}
		text += " " + esml(hint)
		s.hinted, s.hintedAt = now, s.run
	}
	return kit.Say(req, protocol.Skill(ID), text)
}

// say answers with one line of dialog name and ends.
func (s *Skill) say(req *protocol.Request, sd protocol.SkillData, lang, name string) (*protocol.Response, error) {
	text, err := s.locale.Render(lang, name, nil)
	if err != nil {
		return nil, err
	}
	return kit.Say(req, sd, esml(text))
}

// about names a skill as the question says it ("the timer"); "" for a
// skill it cannot name.
func (s *Skill) about(busID string) string {
	return skill.SpokenName(s.manifest(busID))
}

// manifest is the installed skill with a bus id, or nil.
func (s *Skill) manifest(busID string) *registry.Manifest {
	for _, m := range s.opts.Skills() {
		if m != nil && m.BusID() == busID {
			return m
		}
	}
	return nil
}

// spoken is a slot name as words: "start_time" → "start time".
func spoken(slot string) string { return clip(strings.ReplaceAll(slot, "_", " ")) }

// clip bounds what the robot repeats of words it was given.
func clip(w string) string {
	if utf8.RuneCountInString(w) > maxWhat {
		w = string([]rune(w)[:maxWhat])
	}
	return w
}

// esml escapes text for ESML.
var esml = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

func sessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Responder registers the skill as a fallback and answers the pipeline's
// fallback pings for it (FALLBACK-1 §3, §6): it can always handle.
type Responder struct {
	sub *bus.Subscription
}

// Respond registers skill id at priority for every session (the "default"
// scope, FALLBACK-1 §3.4) and answers its pings until Close. Start it
// after the orchestrator, which reads the registration.
func Respond(ctx context.Context, b *bus.Bus, id string, priority int, log *slog.Logger) (*Responder, error) {
	if b == nil {
		return nil, errors.New("fallback responder: no bus")
	}
	if log == nil {
		log = slog.Default()
	}
	sub, err := b.Subscribe(pipeline.TopicFallbackPing, func(ctx context.Context, m bus.Message) {
		pong := m.Reply(pipeline.TopicFallbackPong, map[string]any{"skill_id": id, "can_handle": true})
		pong.Context[bus.KeySkillID] = id
		if err := b.Publish(ctx, pong); err != nil {
			log.Warn("answering a fallback ping", "skill_id", id, "err", err)
		}
	}, bus.WithName("fallback-"+id), bus.WithQueue(bus.DefaultQueueLen, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("fallback responder: %w", err)
	}
	reg := bus.NewMessage(pipeline.TopicFallbackRegister, map[string]any{"skill_id": id, "priority": priority})
	reg.Context[bus.KeySkillID] = id
	reg.Context[bus.KeySource] = id
	if err := b.Publish(ctx, reg); err != nil {
		sub.Close()
		return nil, fmt.Errorf("fallback responder: registering %s: %w", id, err)
	}
	return &Responder{sub: sub}, nil
}

// Close stops answering pings; a nil Responder is fine.
func (r *Responder) Close() {
	if r != nil {
		r.sub.Close()
	}
}
