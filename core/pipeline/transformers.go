package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/chainorder"
)

// ChainType names a transformer chain (TRF-01). The audio chain belongs to
// the audio input layer and is not run here.
type ChainType string

// The chains this package runs: utterance, metadata and intent inside the
// lifecycle, dialog and TTS for the output layer.
const (
	ChainUtterance ChainType = "utterance"
	ChainMetadata  ChainType = "metadata"
	ChainIntent    ChainType = "intent"
	ChainDialog    ChainType = "dialog"
	ChainTTS       ChainType = "tts"
)

// Chains lists the chain types this package runs, in lifecycle order.
var Chains = []ChainType{ChainUtterance, ChainMetadata, ChainIntent, ChainDialog, ChainTTS}

// DefaultPriority is a transformer's priority when it states none (TRF-08).
const DefaultPriority = 50

// DefaultTransformTimeout bounds one transformer call; a transformer that
// does not answer in time counts as one that raised (TRF-11).
const DefaultTransformTimeout = 5 * time.Second

// MaxTransformers bounds the transformers loaded per chain.
const MaxTransformers = 64

// Transformer is one stage of a chain. Lower priorities run first (TRF-08).
// Implementations must be re-entrant (TRF-11): lifecycles run concurrently.
type Transformer interface {
	ID() string
	Priority() int
}

// Utterances flows through the utterance chain (TRF-05): the candidate list
// (utterances[0] primary), the language threaded per TRF-04 ("" = none) and
// the message context, session included.
type Utterances struct {
	Utterances []string
	Lang       string
	Context    map[string]any
}

// UtteranceTransformer rewrites the candidate list after speech recognition.
type UtteranceTransformer interface {
	Transformer
	TransformUtterances(ctx context.Context, in Utterances) (Utterances, error)
}

// MetadataTransformer rewrites the message context (TRF-06): session,
// routing, pipeline.
type MetadataTransformer interface {
	Transformer
	TransformMetadata(ctx context.Context, c map[string]any) (map[string]any, error)
}

// Intent flows through the intent chain (TRF-07): the claiming Match and the
// message context.
type Intent struct {
	Match   Match
	Context map[string]any
}

// IntentTransformer adjusts the Match before dispatch. It may add slots; a
// changed skill_id or intent_name discards its output (TRF-07).
type IntentTransformer interface {
	Transformer
	TransformIntent(ctx context.Context, in Intent) (Intent, error)
}

// Dialog flows through the dialog chain: the text about to be spoken.
type Dialog struct {
	Utterance string
	Lang      string
	Context   map[string]any
}

// DialogTransformer rewrites speech text before TTS.
type DialogTransformer interface {
	Transformer
	TransformDialog(ctx context.Context, in Dialog) (Dialog, error)
}

// Audio flows through the TTS chain: synthesised audio before playback.
type Audio struct {
	Audio   []byte
	Lang    string
	Context map[string]any
}

// TTSTransformer rewrites synthesised audio before playback.
type TTSTransformer interface {
	Transformer
	TransformTTS(ctx context.Context, in Audio) (Audio, error)
}

// TransformersConfig lists the loaded transformers per chain.
type TransformersConfig struct {
	Utterance []UtteranceTransformer
	Metadata  []MetadataTransformer
	Intent    []IntentTransformer
	Dialog    []DialogTransformer
	TTS       []TTSTransformer
	// Order is an explicit deployer order per chain: when a chain has one,
	// it runs exactly these ids in this order and loaded transformers it
	// omits do not run (TRF-08). A session's <type>_transformers still
	// overrides it (TRF-09).
	Order map[ChainType][]string
	// Timeout bounds one transformer call (default DefaultTransformTimeout).
	Timeout time.Duration
	Logger  *slog.Logger
}

// Transformers holds the loaded chains. Build it once with NewTransformers
// and share it between the orchestrator and the output layer; Close waits
// for calls abandoned at their timeout.
type Transformers struct {
	log      *slog.Logger
	timeout  time.Duration
	chains   map[ChainType]*chainDef
	wg       sync.WaitGroup
	closedMu sync.Mutex
	closed   bool
}

// chainDef is one chain's loaded transformers.
type chainDef struct {
	typ   ChainType
	prio  map[string]int
	impl  map[string]any // the transformer, by id
	order []string       // deployer order, or every id by ascending priority
}

// NewTransformers validates the transformers (TRF-01: a non-empty id in
// topic syntax without ':', unique per chain) and the deployer orders.
func NewTransformers(cfg TransformersConfig) (*Transformers, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTransformTimeout
	}
	t := &Transformers{log: log.With("component", "transformers"), timeout: cfg.Timeout, chains: map[ChainType]*chainDef{}}
	add := func(typ ChainType, list []Transformer) error {
		if len(list) > MaxTransformers {
			return fmt.Errorf("%s chain: %d transformers, limit %d", typ, len(list), MaxTransformers)
		}
		c := &chainDef{typ: typ, prio: map[string]int{}, impl: map[string]any{}}
		for i, tr := range list {
			if tr == nil || reflect.ValueOf(tr).IsZero() {
				return fmt.Errorf("%s chain: transformer %d is nil", typ, i)
			}
			id := tr.ID()
			if err := ValidateTransformerID(id); err != nil {
				return fmt.Errorf("%s chain: %w", typ, err)
			}
			if _, dup := c.impl[id]; dup {
				return fmt.Errorf("%s chain: transformer id %q loaded twice (TRF-01)", typ, id)
			}
			c.impl[id] = tr
			c.prio[id] = tr.Priority()
		}
		if order, ok := cfg.Order[typ]; ok {
			var err error
			if c.order, err = chainorder.Deployer(order, c.prio); err != nil {
				return fmt.Errorf("%s chain: %w", typ, err)
			}
		} else {
			c.order = chainorder.ByPriority(c.prio)
		}
		t.chains[typ] = c
		return nil
	}
	for typ := range cfg.Order {
		if !knownChain(typ) {
			return nil, fmt.Errorf("transformers: deployer order for unknown chain %q", typ)
		}
	}
	steps := []struct {
		typ  ChainType
		list []Transformer
	}{
		{ChainUtterance, asTransformers(cfg.Utterance)},
		{ChainMetadata, asTransformers(cfg.Metadata)},
		{ChainIntent, asTransformers(cfg.Intent)},
		{ChainDialog, asTransformers(cfg.Dialog)},
		{ChainTTS, asTransformers(cfg.TTS)},
	}
	for _, s := range steps {
		if err := add(s.typ, s.list); err != nil {
			return nil, fmt.Errorf("transformers: %w", err)
		}
	}
	return t, nil
}

func asTransformers[T Transformer](in []T) []Transformer {
	out := make([]Transformer, len(in))
	for i, t := range in {
		out[i] = t
	}
	return out
}

func knownChain(typ ChainType) bool {
	for _, c := range Chains {
		if c == typ {
			return true
		}
	}
	return false
}

// ValidateTransformerID checks TRF-01: non-empty, topic syntax, no ':'.
func ValidateTransformerID(id string) error {
	if id == "" || strings.Contains(id, ":") {
		return fmt.Errorf("transformer id %q: want a non-empty topic-syntax name without ':' (TRF-01)", id)
	}
	if err := bus.ValidateTopic(id); err != nil {
		return fmt.Errorf("transformer id %q: %w (TRF-01)", id, err)
	}
	return nil
}

// List answers ovos.transformer.<type>.list (TRF-10): the loaded ids in
// default order and their priorities.
func (t *Transformers) List(typ ChainType) (loaded []string, priorities map[string]int) {
	priorities = map[string]int{}
	if t == nil {
		return []string{}, priorities
	}
	c := t.chains[typ]
	if c == nil {
		return []string{}, priorities
	}
	loaded = append([]string{}, c.order...)
	for id, p := range c.prio {
		priorities[id] = p
	}
	return loaded, priorities
}

// Close waits, until ctx ends, for transformer calls abandoned at their
// timeout; later runs are refused.
func (t *Transformers) Close(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.closedMu.Lock()
	t.closed = true
	t.closedMu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("transformers: calls still running at close (a transformer ignores its context): %w", ctx.Err())
	}
}

// composed is one chain as it runs for one lifecycle.
type composed struct {
	typ ChainType
	ids []string
	c   *chainDef
}

// compose builds a chain for a session (TRF-09): preference
// (<type>_transformers if non-empty, else the deployer or priority order),
// availability (loaded ids only, each once), policy
// (blacklisted_<type>_transformers).
func (t *Transformers) compose(typ ChainType, s session.Session, log *slog.Logger) composed {
	out := composed{typ: typ}
	if t == nil || t.chains[typ] == nil {
		return out
	}
	c := t.chains[typ]
	out.c = c
	pref, ok := s.Strings(string(typ) + "_transformers")
	if !ok || len(pref) == 0 {
		pref = c.order
	}
	blocked := map[string]bool{}
	if bl, ok := s.Strings("blacklisted_" + string(typ) + "_transformers"); ok {
		for _, id := range bl {
			blocked[id] = true
		}
	}
	seen := map[string]bool{}
	for _, id := range pref {
		if _, loaded := c.impl[id]; !loaded {
			log.Warn("transformer not loaded; skipped", "chain", typ, "transformer_id", id)
			continue
		}
		if seen[id] || blocked[id] {
			continue
		}
		seen[id] = true
		out.ids = append(out.ids, id)
	}
	return out
}

// Cancel is a transformer's cancellation of the lifecycle (TRF-12).
type Cancel struct {
	Reason string
	By     string // the transformer id, from the orchestrator's knowledge
}

// errShape marks a transformer output that breaks its chain's contract: it
// counts as if the transformer returned its input (TRF-11).
var errShape = errors.New("wrong-shaped output")

// cancelOf reads TRF-12's two keys: both present and well-typed is a
// cancellation; exactly one of them is a shape violation.
func cancelOf(c map[string]any) (string, bool, error) {
	cv, hasC := c[KeyCanceled]
	rv, hasR := c[KeyCancelReason]
	if !hasC && !hasR {
		return "", false, nil
	}
	canceled, _ := cv.(bool)
	reason, _ := rv.(string)
	if canceled && reason != "" {
		return reason, true, nil
	}
	if !hasC || !hasR || canceled || reason != "" {
		return "", false, fmt.Errorf("%w: canceled and cancel_reason must come together (TRF-12)", errShape)
	}
	return "", false, nil // canceled: false with an empty reason: no cancellation
}

// call runs fn with the chain's timeout on a goroutine of its own: a
// transformer that panics or hangs cannot stall the lifecycle; a late answer
// is dropped.
func (t *Transformers) call(ctx context.Context, typ ChainType, id string, fn func(context.Context) (any, error)) (any, error) {
	t.closedMu.Lock()
	if t.closed {
		t.closedMu.Unlock()
		return nil, errors.New("transformers closed")
	}
	t.wg.Add(1)
	t.closedMu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	type answer struct {
		v   any
		err error
	}
	ch := make(chan answer, 1)
	log := t.log
	go func() {
		defer t.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				log.Error("transformer panicked", "chain", typ, "transformer_id", id, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				ch <- answer{err: fmt.Errorf("transformer panicked: %v", r)}
			}
		}()
		v, err := fn(cctx)
		ch <- answer{v, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.err
	case <-cctx.Done():
		return nil, fmt.Errorf("transformer gave no answer within %s: %w", t.timeout, cctx.Err())
	}
}

// step runs one transformer and applies TRF-11/12/03: an error or a
// wrong-shaped output keeps the input; a change appends the id to
// <type>_transformer_ids; a cancellation is stamped with cancel_by.
// shape checks the artifact-specific contract and returns the output's
// context.
//
// prev is the chain's current artifact, never handed to the transformer;
// fresh is a deep copy of it that the transformer may change in place.
func step[T any](ctx context.Context, t *Transformers, typ ChainType, id string, prev, fresh T, prevCtx map[string]any,
	run func(context.Context, T) (T, error), check func(prev, out T) (map[string]any, error), setCtx func(T, map[string]any) T,
	log *slog.Logger) (T, *Cancel) {
	in := prev
	v, err := t.call(ctx, typ, id, func(c context.Context) (any, error) { return run(c, fresh) })
	if err != nil {
		log.Warn("transformer failed; its input passes on unchanged", "chain", typ, "transformer_id", id, "err", err)
		return in, nil
	}
	out, ok := v.(T)
	if !ok {
		return in, nil
	}
	oc, err := check(in, out)
	if err == nil {
		oc, err = bus.NormalizeMap(oc)
		if err != nil {
			err = fmt.Errorf("%w: context: %w", errShape, err)
		}
	}
	var reason string
	var canceled bool
	if err == nil {
		reason, canceled, err = cancelOf(oc)
	}
	if err != nil {
		log.Warn("transformer output refused; its input passes on unchanged", "chain", typ, "transformer_id", id, "err", err)
		return in, nil
	}
	idsKey := string(typ) + "_transformer_ids"
	if !reflect.DeepEqual(setCtx(in, nil), setCtx(out, nil)) || !sameContext(prevCtx, oc, idsKey) {
		ids, _ := oc[idsKey].([]any)
		oc[idsKey] = append(append([]any{}, ids...), id)
	}
	if canceled {
		oc[KeyCancelBy] = id // TRF-12: from our own knowledge, never the payload
		return setCtx(out, oc), &Cancel{Reason: reason, By: id}
	}
	return setCtx(out, oc), nil
}

// sameContext compares two contexts ignoring the chain's id list.
func sameContext(a, b map[string]any, idsKey string) bool {
	strip := func(m map[string]any) map[string]any {
		c := make(map[string]any, len(m))
		for k, v := range m {
			if k != idsKey {
				c[k] = v
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// checkContext is the shape rule every chain shares: the context is an
// object and its session, if any, is an object (SES-08).
func checkContext(c map[string]any) error {
	if c == nil {
		return fmt.Errorf("%w: context is missing", errShape)
	}
	if v, ok := c[bus.KeySession]; ok && v != nil {
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("%w: context.session is %T, want object", errShape, v)
		}
	}
	return nil
}

// runUtterances runs a composed utterance chain (TRF-05): a list of
// non-empty strings out, possibly empty (PIPE-17, §14 item 3).
func (t *Transformers) runUtterances(ctx context.Context, ch composed, in Utterances, log *slog.Logger) (Utterances, *Cancel) {
	for _, id := range ch.ids {
		tr := ch.c.impl[id].(UtteranceTransformer)
		var c *Cancel
		in, c = step(ctx, t, ch.typ, id, in, cloneUtterances(in), in.Context, tr.TransformUtterances,
			func(_, out Utterances) (map[string]any, error) {
				if len(out.Utterances) > MaxUtterances {
					return nil, fmt.Errorf("%w: %d utterances, limit %d", errShape, len(out.Utterances), MaxUtterances)
				}
				for i, u := range out.Utterances {
					if u == "" || len(u) > MaxUtteranceBytes {
						return nil, fmt.Errorf("%w: utterances[%d] is empty or over %d bytes", errShape, i, MaxUtteranceBytes)
					}
				}
				if out.Lang != "" && !session.ValidLang(out.Lang) {
					return nil, fmt.Errorf("%w: lang %q is not BCP-47", errShape, out.Lang)
				}
				return out.Context, checkContext(out.Context)
			},
			func(u Utterances, c map[string]any) Utterances { u.Context = c; return u }, log)
		if c != nil {
			return in, c
		}
	}
	return in, nil
}

func cloneUtterances(u Utterances) Utterances {
	u.Utterances = append([]string(nil), u.Utterances...)
	u.Context = bus.CopyMap(u.Context)
	return u
}

// metaBox carries a context through the generic step.
type metaBox struct{ c map[string]any }

// runMetadata runs a composed metadata chain (TRF-06).
func (t *Transformers) runMetadata(ctx context.Context, ch composed, in map[string]any, log *slog.Logger) (map[string]any, *Cancel) {
	cur := metaBox{c: in}
	for _, id := range ch.ids {
		tr := ch.c.impl[id].(MetadataTransformer)
		var c *Cancel
		cur, c = step(ctx, t, ch.typ, id, cur, metaBox{c: bus.CopyMap(cur.c)}, cur.c,
			func(cx context.Context, b metaBox) (metaBox, error) {
				out, err := tr.TransformMetadata(cx, b.c)
				return metaBox{c: out}, err
			},
			func(_, out metaBox) (map[string]any, error) { return out.c, checkContext(out.c) },
			func(b metaBox, c map[string]any) metaBox {
				if c == nil {
					return metaBox{}
				}
				return metaBox{c: c}
			}, log)
		if c != nil {
			return cur.c, c
		}
	}
	return cur.c, nil
}

// runIntent runs a composed intent chain (TRF-07): the output must still be
// a well-formed Match (PIPE-07) for the same skill_id and intent_name.
func (t *Transformers) runIntent(ctx context.Context, ch composed, in Intent, log *slog.Logger) (Intent, *Cancel) {
	in.Match.UpdatedSession = nil // committed already; the chain sees the Match only
	for _, id := range ch.ids {
		tr := ch.c.impl[id].(IntentTransformer)
		var c *Cancel
		in, c = step(ctx, t, ch.typ, id, in, cloneIntent(in), in.Context, tr.TransformIntent,
			func(prev, out Intent) (map[string]any, error) {
				if out.Match.SkillID != prev.Match.SkillID || out.Match.IntentName != prev.Match.IntentName {
					return nil, fmt.Errorf("%w: skill_id or intent_name changed (TRF-07)", errShape)
				}
				if err := out.Match.validate(); err != nil {
					return nil, fmt.Errorf("%w: %w", errShape, err)
				}
				return out.Context, checkContext(out.Context)
			},
			func(i Intent, c map[string]any) Intent { i.Context = c; return i }, log)
		if c != nil {
			return in, c
		}
	}
	return in, nil
}

func cloneIntent(i Intent) Intent {
	m := i.Match
	m.Slots = cloneSlots(m.Slots)
	return Intent{Match: m, Context: bus.CopyMap(i.Context)}
}

func cloneSlots(s map[string]string) map[string]string {
	if s == nil {
		return nil
	}
	out := make(map[string]string, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// RunDialog runs the dialog chain on an ovos.utterance.speak message, for the
// output layer: the chain is composed from the message's session, data.lang
// is threaded per TRF-04, and the result is the message to render. A
// cancellation means the speech must not be rendered.
func (t *Transformers) RunDialog(ctx context.Context, speak bus.Message) (bus.Message, *Cancel, error) {
	text, ok := speak.Data["utterance"].(string)
	if !ok || text == "" {
		return speak, nil, fmt.Errorf("dialog chain: %s has no data.utterance string", speak.Type)
	}
	s, _, err := session.FromMessage(speak)
	if err != nil {
		return speak, nil, fmt.Errorf("dialog chain: %w", err)
	}
	lang, hadLang := speak.Data["lang"].(string)
	ch := t.compose(ChainDialog, s, t.logger())
	in := Dialog{Utterance: text, Lang: lang, Context: bus.CopyMap(speak.Context)}
	var c *Cancel
	for _, id := range ch.ids {
		tr := ch.c.impl[id].(DialogTransformer)
		in, c = step(ctx, t, ch.typ, id, in, Dialog{Utterance: in.Utterance, Lang: in.Lang, Context: bus.CopyMap(in.Context)}, in.Context,
			tr.TransformDialog,
			func(_, out Dialog) (map[string]any, error) {
				if out.Utterance == "" {
					return nil, fmt.Errorf("%w: empty text", errShape)
				}
				if out.Lang != "" && !session.ValidLang(out.Lang) {
					return nil, fmt.Errorf("%w: lang %q is not BCP-47", errShape, out.Lang)
				}
				return out.Context, checkContext(out.Context)
			},
			func(d Dialog, c map[string]any) Dialog { d.Context = c; return d }, t.logger())
		if c != nil {
			break
		}
	}
	data := bus.CopyMap(speak.Data)
	data["utterance"] = in.Utterance
	switch {
	case in.Lang != "":
		data["lang"] = in.Lang
	case hadLang:
		delete(data, "lang") // TRF-04: ended as None after being present
	}
	return bus.Message{Type: speak.Type, Data: data, Context: in.Context}, c, nil
}

// RunTTS runs the TTS chain on synthesised audio for the message that asked
// for it (an ovos.utterance.speak), for the output layer.
func (t *Transformers) RunTTS(ctx context.Context, audio []byte, lang string, msg bus.Message) (Audio, *Cancel, error) {
	s, _, err := session.FromMessage(msg)
	if err != nil {
		return Audio{}, nil, fmt.Errorf("tts chain: %w", err)
	}
	ch := t.compose(ChainTTS, s, t.logger())
	in := Audio{Audio: audio, Lang: lang, Context: bus.CopyMap(msg.Context)}
	for _, id := range ch.ids {
		tr := ch.c.impl[id].(TTSTransformer)
		var c *Cancel
		in, c = step(ctx, t, ch.typ, id, in, Audio{Audio: append([]byte(nil), in.Audio...), Lang: in.Lang, Context: bus.CopyMap(in.Context)}, in.Context,
			tr.TransformTTS,
			func(_, out Audio) (map[string]any, error) {
				if len(out.Audio) == 0 {
					return nil, fmt.Errorf("%w: no audio", errShape)
				}
				if out.Lang != "" && !session.ValidLang(out.Lang) {
					return nil, fmt.Errorf("%w: lang %q is not BCP-47", errShape, out.Lang)
				}
				return out.Context, checkContext(out.Context)
			},
			func(a Audio, c map[string]any) Audio { a.Context = c; return a }, t.logger())
		if c != nil {
			return in, c, nil
		}
	}
	return in, nil, nil
}

func (t *Transformers) logger() *slog.Logger {
	if t == nil || t.log == nil {
		return slog.Default()
	}
	return t.log
}
