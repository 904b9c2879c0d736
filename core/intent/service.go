package intent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/bus"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/sortx"
)

// Registration topics of INTENT-4 (REG-01) and the introspection topics
// (REG-12, REG-13).
const (
	TopicRegisterTemplate = "ovos.intent.register.template"
	TopicRegisterKeyword  = "ovos.intent.register.keyword"
	TopicRegisterEntity   = "ovos.entity.register"
	TopicDeregister       = "ovos.intent.deregister"
	TopicEnable           = "ovos.intent.enable"
	TopicDisable          = "ovos.intent.disable"
	TopicDeregisterEntity = "ovos.entity.deregister"
	TopicSkillDeregister  = "ovos.skill.deregister"
	TopicList             = "ovos.intent.list"
	TopicDescribe         = "ovos.intent.describe"
)

// serviceQueue is the registration queue's length. The service's handler
// publishes answers, so its queue drops (and logs) rather than blocks when a
// flood fills it.
const serviceQueue = 4096

// Service consumes the registration topics, keeps the manifest of what was
// registered (REG-02) and feeds the engines it is given. One subscription
// carries every topic it handles, so a list or describe query is answered
// only after every registration published before it.
type Service struct {
	bus      *bus.Bus
	template *TemplateEngine // nil: template registrations are rejected
	keyword  *KeywordEngine  // nil: keyword registrations are rejected
	engines  []indexer       // the loaded engines, for deregister, enable and disable
	log      *slog.Logger

	mu       sync.Mutex
	manifest map[manifestKey]map[string]any // payload as broadcast (REG-02)
	indexed  map[manifestKey]bool           // whether an engine indexed it
	rules    map[manifestKey]pipeline.IntentRule
	entities map[entityKey][]string // entity samples
	sub      *bus.Subscription
}

type manifestKey struct{ session, skill, intent, lang, method string }
type entityKey struct{ session, skill, entity, lang string }

// indexer is what the service needs of every engine beyond registering: the
// definition methods it accepts (DEF-10), and deregister, enable and
// disable for what it indexed (REG-09, REG-10, REG-15).
type indexer interface {
	Methods() []string
	Deregister(sessionID, skillID, intentName, lang string) int
	RemoveSkill(sessionID, skillID string) int
	SetEnabled(sessionID, skillID, intentName, lang string, enabled bool) int
}

// Methods reports the definition methods the engine accepts (DEF-10).
func (e *TemplateEngine) Methods() []string { return []string{MethodTemplate} }

// ServiceOption configures a Service.
type ServiceOption func(*Service)

// WithKeywordEngine feeds keyword registrations
// (ovos.intent.register.keyword) to k. Without it they are rejected (DEF-10).
func WithKeywordEngine(k *KeywordEngine) ServiceOption {
	return func(s *Service) { s.keyword = k }
}

// NewService builds the registration service for the template engine (nil
// for none) and the engines the options add.
func NewService(b *bus.Bus, engine *TemplateEngine, log *slog.Logger, opts ...ServiceOption) *Service {
	if log == nil {
		log = slog.Default()
	}
	s := &Service{bus: b, template: engine, log: log.With("component", "intents"),
		manifest: map[manifestKey]map[string]any{}, indexed: map[manifestKey]bool{}, entities: map[entityKey][]string{},
		rules: map[manifestKey]pipeline.IntentRule{}}
	for _, o := range opts {
		o(s)
	}
	if s.template != nil {
		s.engines = append(s.engines, s.template)
	}
	if s.keyword != nil {
		s.engines = append(s.engines, s.keyword)
	}
	return s
}

// accepts returns nil when a loaded engine declares method, else the
// rejection: an engine must reject, not ignore, what it does not accept
// (DEF-10).
func (s *Service) accepts(method string) error {
	for _, e := range s.engines {
		if slices.Contains(e.Methods(), method) {
			return nil
		}
	}
	return fmt.Errorf("no loaded engine accepts %s intents (DEF-10)", method)
}

// Start subscribes to the registration and introspection topics.
func (s *Service) Start() error {
	sub, err := s.bus.SubscribeAll([]string{TopicRegisterTemplate, TopicRegisterKeyword, TopicRegisterEntity,
		TopicDeregister, TopicEnable, TopicDisable, TopicDeregisterEntity, TopicSkillDeregister, TopicList, TopicDescribe},
		s.handle, bus.WithName("intents"), bus.WithQueue(serviceQueue, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("intent service: %w", err)
	}
	s.sub = sub
	return nil
}

// Close unsubscribes and waits for the handler.
func (s *Service) Close() {
	if s.sub != nil {
		s.sub.Close()
	}
}

func (s *Service) handle(ctx context.Context, m bus.Message) {
	sessionID := sessionOf(m)
	if cs := m.ContextString(bus.KeySkillID); cs != "" && cs != m.DataString("skill_id") && m.DataString("skill_id") != "" {
		// REG-11: the payload is authoritative; the context is provenance.
		s.log.Debug("registration for another skill", "topic", m.Type, "context_skill_id", cs, "skill_id", m.DataString("skill_id"))
	}
	var err error
	switch m.Type {
	case TopicRegisterTemplate:
		err = s.registerTemplate(sessionID, m.Data)
	case TopicRegisterKeyword:
		err = s.registerKeyword(sessionID, m.Data)
	case TopicRegisterEntity:
		err = s.registerEntity(sessionID, m.Data)
	case TopicDeregister, TopicEnable, TopicDisable:
		err = s.intentOp(m.Type, sessionID, m.Data)
	case TopicDeregisterEntity:
		err = s.deregisterEntity(sessionID, m.Data)
	case TopicSkillDeregister:
		err = s.deregisterSkill(sessionID, m.Data)
	case TopicList:
		s.answer(ctx, m, s.list(m.Data))
		return
	case TopicDescribe:
		s.answer(ctx, m, s.describe(m.Data))
		return
	}
	if err != nil {
		// REG-08: a rejection is logged with enough to find the producer.
		s.log.Warn("registration rejected", "topic", m.Type, "session_id", sessionID,
			"skill_id", m.DataString("skill_id"), "intent_name", m.DataString("intent_name"),
			"entity_name", m.DataString("entity_name"), "lang", m.DataString("lang"), "reason", err.Error())
	}
}

func (s *Service) answer(ctx context.Context, m bus.Message, data map[string]any) {
	r, err := m.Response(data)
	if err == nil {
		err = s.bus.Publish(ctx, r)
	}
	if err != nil {
		s.log.Warn("answering query", "topic", m.Type, "err", err)
	}
}

// sessionOf is the registration scope: context.session.session_id, never
// data (REG-04).
func sessionOf(m bus.Message) string {
	if sess, ok := m.Context[bus.KeySession].(map[string]any); ok {
		if id, ok := sess["session_id"].(string); ok && id != "" {
			return id
		}
	}
	return DefaultSession
}

// payload readers: a wrong type is an error naming the field.
func reqString(d map[string]any, k string) (string, error) {
	v, ok := d[k]
	if !ok {
		return "", fmt.Errorf("%s missing", k)
	}
	str, ok := v.(string)
	if !ok || str == "" {
		return "", fmt.Errorf("%s: want non-empty string", k)
	}
	return str, nil
}

func optStrings(d map[string]any, k string) ([]string, error) {
	v, ok := d[k]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want array of strings", k)
	}
	out := make([]string, 0, len(l))
	for i, e := range l {
		str, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want string", k, i)
		}
		out = append(out, str)
	}
	return out, nil
}

func optStringMap(d map[string]any, k string) (map[string]string, error) {
	v, ok := d[k]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want object", k)
	}
	out := map[string]string{}
	for name, e := range o {
		str, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s.%s: want string", k, name)
		}
		out[name] = str
	}
	return out, nil
}

func optListMap(d map[string]any, k string) (map[string][]string, error) {
	v, ok := d[k]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want object", k)
	}
	out := map[string][]string{}
	for name := range o {
		l, err := optStrings(o, name)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", k, err)
		}
		out[name] = l
	}
	return out, nil
}

type key3 struct{ skill, intent, lang string }

func readKey(d map[string]any, nameField string) (key3, error) {
	skill, err := reqString(d, "skill_id")
	if err != nil {
		return key3{}, err
	}
	name, err := reqString(d, nameField)
	if err != nil {
		return key3{}, err
	}
	lang := ""
	if v, ok := d["lang"]; ok {
		l, ok := v.(string)
		if !ok {
			return key3{}, errors.New("lang: want string")
		}
		if l != "" {
			if lang, err = NormalizeLang(l); err != nil {
				return key3{}, err
			}
		}
	}
	return key3{skill, name, lang}, nil
}

// templateDef builds an engine definition from a REG-06 payload plus the
// entities registered for the skill.
func (s *Service) templateDef(sessionID string, d map[string]any) (TemplateIntent, error) {
	k, err := readKey(d, "intent_name")
	if err != nil {
		return TemplateIntent{}, err
	}
	if k.lang == "" {
		return TemplateIntent{}, errors.New("lang missing")
	}
	if pipeline.IsReservedIntent(k.intent) {
		return TemplateIntent{}, fmt.Errorf("intent_name %q is reserved (REG-06)", k.intent)
	}
	def := TemplateIntent{SessionID: sessionID, SkillID: k.skill, IntentName: k.intent, Lang: k.lang}
	if def.Samples, err = optStrings(d, "samples"); err != nil {
		return def, err
	}
	if len(def.Samples) == 0 {
		return def, errors.New("samples missing or empty (REG-06)")
	}
	if def.Blacklist, err = optStrings(d, "blacklist"); err != nil {
		return def, err
	}
	if def.RequiredSlots, err = optStrings(d, "required_slots"); err != nil {
		return def, err
	}
	if def.SlotTypes, err = optStringMap(d, "slot_types"); err != nil {
		return def, err
	}
	if def.SlotBlacklist, err = optListMap(d, "slot_blacklist"); err != nil {
		return def, err
	}
	for ek, samples := range s.entities {
		// Entities are the skill's (REG-01); an intent takes those its
		// samples name as a slot, so the rest are not warned about.
		if ek.session == sessionID && ek.skill == k.skill && ek.lang == k.lang && namesSlot(def.Samples, ek.entity) {
			if def.Entities == nil {
				def.Entities = map[string][]string{}
			}
			def.Entities[ek.entity] = samples
		}
	}
	return def, nil
}

// namesSlot reports whether any sample has the slot {name}, typed
// ({number:name}) or not, as a locale folder's intents take their
// entities.
func namesSlot(samples []string, name string) bool {
	slot, typed := "{"+name+"}", ":"+name+"}"
	for _, smp := range samples {
		if strings.Contains(smp, slot) || strings.Contains(smp, typed) {
			return true
		}
	}
	return false
}

func (s *Service) registerTemplate(sessionID string, d map[string]any) error {
	if err := s.accepts(MethodTemplate); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	def, err := s.templateDef(sessionID, d)
	var c *compiledIntent
	if err == nil {
		c, _, err = s.template.register(def)
	}
	if err != nil {
		s.keepUnindexed(sessionID, d, MethodTemplate)
		return err
	}
	k := manifestKey{sessionID, def.SkillID, def.IntentName, def.Lang, MethodTemplate}
	s.keepParsed(k, d, true, c.parsedSlots)
	return nil
}

// keepUnindexed records a registration no engine indexed: the manifest holds
// every registration verbatim, reserved names excepted, and presence there
// does not mean it can match (REG-02). One without a usable key cannot be
// indexed at all. A rejected re-registration never replaces a definition an
// engine still holds: the manifest describes what matches. s.mu must be held.
func (s *Service) keepUnindexed(sessionID string, d map[string]any, method string) {
	k3, err := readKey(d, "intent_name")
	if err != nil || k3.lang == "" || pipeline.IsReservedIntent(k3.intent) {
		return
	}
	k := manifestKey{sessionID, k3.skill, k3.intent, k3.lang, method}
	if s.indexed[k] {
		return
	}
	s.keep(k, d, false)
}

// registerKeyword indexes a REG-05 payload and keeps it verbatim, unknown
// fields such as requires_context included, in the manifest.
func (s *Service) registerKeyword(sessionID string, d map[string]any) error {
	if err := s.accepts(MethodKeyword); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	def, err := KeywordIntentFromPayload(sessionID, d)
	if err == nil {
		_, err = s.keyword.Register(def)
	}
	if err != nil {
		s.keepUnindexed(sessionID, d, MethodKeyword)
		return err
	}
	k := manifestKey{sessionID, def.SkillID, def.IntentName, def.Lang, MethodKeyword}
	s.keep(k, d, true)
	return nil
}

func (s *Service) registerEntity(sessionID string, d map[string]any) error {
	k, err := readKey(d, "entity_name")
	if err != nil {
		return err
	}
	if k.lang == "" {
		return errors.New("lang missing")
	}
	samples, err := optStrings(d, "samples")
	if err != nil {
		return err
	}
	var vals []string
	for _, smp := range samples {
		if _, _, err := Expand(smp, nil, ExpandOptions{}); err != nil {
			s.log.Warn("entity sample skipped", "skill_id", k.skill, "entity_name", k.intent, "sample", smp, "err", err)
			continue
		}
		vals = append(vals, smp)
	}
	if len(vals) == 0 {
		return errors.New("samples missing, empty, or none yields a value (REG-07)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entities[entityKey{sessionID, k.skill, k.intent, k.lang}] = vals
	s.reindexSkill(sessionID, k.skill, k.lang)
	return nil
}

// reindexSkill re-registers a skill's template intents after its entities
// changed, so matching sees the new hints. s.mu must be held.
func (s *Service) reindexSkill(sessionID, skill, lang string) {
	for mk, payload := range s.manifest {
		if mk.session != sessionID || mk.skill != skill || mk.lang != lang || mk.method != MethodTemplate {
			continue
		}
		def, err := s.templateDef(sessionID, payload)
		if err == nil {
			_, err = s.template.Register(def)
		}
		if err != nil {
			s.log.Warn("re-indexing intent after an entity change", "skill_id", skill, "intent_name", mk.intent, "err", err)
			continue
		}
		s.indexed[mk] = true
	}
}

func (s *Service) intentOp(topic, sessionID string, d map[string]any) error {
	k, err := readKey(d, "intent_name")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Every engine: deregister, enable and disable cover both methods
	// (REG-09, REG-10).
	for _, e := range s.engines {
		switch topic {
		case TopicDeregister:
			e.Deregister(sessionID, k.skill, k.intent, k.lang)
		case TopicEnable, TopicDisable:
			e.SetEnabled(sessionID, k.skill, k.intent, k.lang, topic == TopicEnable)
		}
	}
	if topic == TopicDeregister {
		for mk := range s.manifest {
			if mk.session == sessionID && mk.skill == k.skill && mk.intent == k.intent && (k.lang == "" || mk.lang == k.lang) {
				s.drop(mk)
			}
		}
	}
	return nil
}

func (s *Service) deregisterEntity(sessionID string, d map[string]any) error {
	k, err := readKey(d, "entity_name")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	langs := map[string]bool{}
	for ek := range s.entities {
		if ek.session == sessionID && ek.skill == k.skill && ek.entity == k.intent && (k.lang == "" || ek.lang == k.lang) {
			delete(s.entities, ek)
			langs[ek.lang] = true
		}
	}
	for l := range langs {
		s.reindexSkill(sessionID, k.skill, l)
	}
	return nil
}

func (s *Service) deregisterSkill(sessionID string, d map[string]any) error {
	skill, err := reqString(d, "skill_id")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.engines {
		e.RemoveSkill(sessionID, skill)
	}
	for mk := range s.manifest {
		if mk.session == sessionID && mk.skill == skill {
			s.drop(mk)
		}
	}
	for ek := range s.entities {
		if ek.session == sessionID && ek.skill == skill {
			delete(s.entities, ek)
		}
	}
	return nil
}

// list answers ovos.intent.list (REG-12) from what the engines indexed,
// both methods, ordered by session ("default" first), skill, intent, lang
// and method (keyword before template, as REG-13 orders).
func (s *Service) list(d map[string]any) map[string]any {
	skill, _ := d["skill_id"].(string)
	lang, _ := d["lang"].(string)
	lang = strings.ToLower(lang)
	session, _ := d["session_id"].(string)
	type entry struct {
		session, skill, intent, lang, method string
		enabled                              bool
	}
	var all []entry
	if s.template != nil {
		for _, r := range s.template.Registrations(session) {
			all = append(all, entry{r.SessionID, r.SkillID, r.IntentName, r.Lang, MethodTemplate, r.Enabled})
		}
	}
	if s.keyword != nil {
		for _, r := range s.keyword.Registrations(session) {
			all = append(all, entry{r.SessionID, r.SkillID, r.IntentName, r.Lang, MethodKeyword, r.Enabled})
		}
	}
	sortx.Func(all, func(a, b entry) int {
		return slices.Compare([]string{rank(a.session), a.session, a.skill, a.intent, a.lang, a.method},
			[]string{rank(b.session), b.session, b.skill, b.intent, b.lang, b.method})
	})
	intents := []any{}
	for _, r := range all {
		if (skill != "" && r.skill != skill) || (lang != "" && r.lang != lang) {
			continue
		}
		intents = append(intents, map[string]any{"skill_id": r.skill, "intent_name": r.intent,
			"lang": r.lang, "method": r.method, "enabled": r.enabled, "session_id": r.session})
	}
	return map[string]any{"ok": true, "intents": intents}
}

// describe answers ovos.intent.describe (REG-13) from the manifest.
func (s *Service) describe(d map[string]any) map[string]any {
	skill, _ := d["skill_id"].(string)
	if skill == "" {
		return map[string]any{"ok": false, "error": "skill_id is required"}
	}
	intentName, _ := d["intent_name"].(string)
	lang, _ := d["lang"].(string)
	lang = strings.ToLower(lang)
	method, _ := d["method"].(string)
	session, _ := d["session_id"].(string)
	s.mu.Lock()
	var keys []manifestKey
	known := false
	for mk := range s.manifest {
		if mk.skill != skill {
			continue
		}
		known = true
		if (intentName != "" && mk.intent != intentName) || (lang != "" && mk.lang != lang) ||
			(method != "" && mk.method != method) ||
			(session != "" && mk.session != session && mk.session != DefaultSession) {
			continue
		}
		keys = append(keys, mk)
	}
	// REG-13's order; "keyword" sorts before "template".
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return slices.Compare([]string{rank(a.session), a.session, a.intent, a.lang, a.method},
			[]string{rank(b.session), b.session, b.intent, b.lang, b.method}) < 0
	})
	defs := []any{}
	for _, k := range keys {
		defs = append(defs, map[string]any{"skill_id": k.skill, "intent_name": k.intent, "lang": k.lang,
			"method": k.method, "session_id": k.session, "definition": bus.CopyMap(s.manifest[k]),
			"indexed": s.indexed[k]})
	}
	s.mu.Unlock()
	switch {
	case !known:
		return map[string]any{"ok": false, "error": fmt.Sprintf("unknown skill %q", skill)}
	case len(defs) == 0:
		return map[string]any{"ok": false, "error": "no definition matches"}
	}
	return map[string]any{"ok": true, "definitions": defs}
}

func rank(session string) string {
	if session == DefaultSession {
		return "0"
	}
	return "1"
}

// keep records a registration in the manifest, verbatim, with the rules
// the orchestrator applies to its intent. s.mu must be held.
func (s *Service) keep(k manifestKey, d map[string]any, indexed bool) {
	s.keepParsed(k, d, indexed, nil)
}

// keepParsed is keep with the slot names of a template registration's
// samples, as the engine parsed them (nil: ruleOf parses them).
func (s *Service) keepParsed(k manifestKey, d map[string]any, indexed bool, slots []string) {
	s.manifest[k], s.indexed[k] = bus.CopyMap(d), indexed
	s.rules[k] = ruleOf(k, d, slots)
}

// drop removes a registration from the manifest. s.mu must be held.
func (s *Service) drop(k manifestKey) {
	delete(s.manifest, k)
	delete(s.indexed, k)
	delete(s.rules, k)
}

// ruleOf reads what a registration says beyond matching: context rules
// (CTX-11, CTX-12), the slot or vocabulary names context may fill (CTX-13)
// and the required slots (PIPE-15). Slot names come from the grammar's own
// parser; a template that does not parse declares nothing. parsed are
// the template samples' slot names when the engine has read them (nil:
// they are read here).
func ruleOf(k manifestKey, d map[string]any, parsed []string) pipeline.IntentRule {
	r := pipeline.IntentRule{Lang: k.lang, Method: k.method}
	var err error
	if r.Requires, err = session.ParseContextRefs(d["requires_context"]); err != nil {
		r.Bad = fmt.Errorf("requires_context %w", err)
	} else if r.Excludes, err = session.ParseContextRefs(d["excludes_context"]); err != nil {
		r.Bad = fmt.Errorf("excludes_context %w", err)
	} else {
		for _, a := range r.Requires {
			if slices.Contains(r.Excludes, a) {
				r.Bad = fmt.Errorf("key %q is both required and excluded (CTX-12)", a.Key)
				break
			}
		}
	}
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			r.Slots = append(r.Slots, n)
		}
	}
	if k.method == MethodTemplate && parsed != nil {
		for _, n := range parsed {
			add(n)
		}
	} else if k.method == MethodTemplate {
		samples, _ := optStrings(d, "samples")
		for _, smp := range samples {
			if t, err := Parse(smp); err == nil {
				for _, n := range t.SlotNames() {
					add(n)
				}
			}
		}
	} else {
		for _, role := range []string{"required", "optional"} {
			list, _ := d[role].([]any)
			for _, x := range list {
				if dm, ok := x.(map[string]any); ok {
					n, _ := dm["name"].(string)
					add(n)
				}
			}
		}
		groups, _ := d["one_of"].([]any)
		for _, g := range groups {
			list, _ := g.([]any)
			for _, x := range list {
				if dm, ok := x.(map[string]any); ok {
					n, _ := dm["name"].(string)
					add(n)
				}
			}
		}
	}
	r.Required, _ = optStrings(d, "required_slots")
	return r
}

// IntentRules returns the rules of every registration of the intent in the
// session's pool, "default" and its own scope (REG-14), for the
// orchestrator's checks (CTX-11, CTX-12, CTX-13, PIPE-15).
func (s *Service) IntentRules(sessionID, skillID, intentName string) []pipeline.IntentRule {
	sessionID = sessionOrDefault(sessionID)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []pipeline.IntentRule
	for k, r := range s.rules {
		if k.skill == skillID && k.intent == intentName && (k.session == DefaultSession || k.session == sessionID) {
			out = append(out, r)
		}
	}
	return out
}
