package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// TopicTrigger asks the robot to send the hub a TRIGGER: {source:
// "NEW_ARRIVAL"|"SURPRISE", looper_id?}.
const TopicTrigger = "jibo.hub.trigger"

// DefaultRefresh is how often the catalog is fetched again while the link
// is up (it is also fetched every time the link comes up).
const DefaultRefresh = 10 * time.Minute

// DefaultActiveWindow is how long after its last turn a cloud skill's
// kept conversation counts as the active skill the remote fallback names
// in CONTEXT. A conversation is kept until the skill ends it, on disk
// across restarts: without a bound, a skill left mid-game would get every
// unmatched utterance of the days after as an answer.
const DefaultActiveWindow = 10 * time.Minute

// Conversations lists the sessions the skill host keeps between turns;
// the host's store (skill.Conversations: *store.Store, *skill.MemoryState)
// is one.
type Conversations interface {
	Conversations() ([]store.Conversation, error)
}

// Host is the skill host the proxies live in; *skill.Host is one.
type Host interface {
	Add(s skill.Skill) error
	Remove(ctx context.Context, id string) error
	// Register announces every hosted skill's intents again.
	Register(ctx context.Context) error
	// Proactive launches a skill on its own with the timer's memo.
	Proactive(ctx context.Context, t store.Timer) error
}

// RemoteConfig wires a Remote.
type RemoteConfig struct {
	Client *Client
	Host   Host
	// Bus, if set, carries TopicTrigger requests.
	Bus *bus.Bus
	// StateDir keeps the catalog cache; "" keeps none.
	StateDir string
	// Release is the robot's release, sent in CONTEXT general.
	Release string
	// Lang is the language of proactive turns.
	Lang string
	// Runtime, if set, is the robot's runtime context for TRIGGER and
	// remote fallback turns.
	Runtime func() protocol.RuntimeContext
	// Conversations, if set, is the store the Host keeps skills' sessions
	// in: the remote fallback finds the active cloud skill there.
	Conversations Conversations
	// ActiveWindow bounds how old a kept conversation may be to count as
	// the active cloud skill (default DefaultActiveWindow).
	ActiveWindow time.Duration
	// Refresh is the catalog's refresh period (default DefaultRefresh).
	Refresh time.Duration
	// Slimmer speaks the offline MIM; nil means a default one.
	Slimmer *mim.Slimmer
	Logger  *slog.Logger
	Now     func() time.Time
}

// Remote keeps the robot's proxies of the hub's skills in step with the
// hub's catalog and runs proactive TRIGGERs.
type Remote struct {
	cfg     RemoteConfig
	client  *Client
	log     *slog.Logger
	offline *offline

	mu      sync.RWMutex
	proxies map[string]*RemoteSkill // by catalog id
	current []byte                  // the catalog applied, encoded

	// applyMu serialises catalog changes.
	applyMu sync.Mutex

	upCh      chan struct{}
	triggerCh chan triggerReq
	// fetched is closed when the first catalog fetch has ended, well or not.
	fetched     chan struct{}
	fetchedOnce sync.Once
	sub         *bus.Subscription
	cancel      context.CancelFunc
	wg          sync.WaitGroup
}

type triggerReq struct{ source, looper string }

// NewRemote builds the manager; LoadCache and Start bring it to life.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	if cfg.Client == nil || cfg.Host == nil {
		return nil, errors.New("hub remote skills: need a client and a host")
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.ActiveWindow <= 0 {
		cfg.ActiveWindow = DefaultActiveWindow
	}
	if cfg.Release == "" {
		cfg.Release = "1.9.2"
	}
	if cfg.Lang == "" {
		cfg.Lang = "en-US"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	off, err := newOffline(cfg.Slimmer)
	if err != nil {
		return nil, err
	}
	return &Remote{cfg: cfg, client: cfg.Client, log: log.With("component", "hub"), offline: off,
		proxies: map[string]*RemoteSkill{}, upCh: make(chan struct{}, 1), triggerCh: make(chan triggerReq, 1),
		fetched: make(chan struct{})}, nil
}

// LoadCache adds the proxies of the cached catalog to the host, so remote
// intents are known even when the robot starts offline. It does not
// register them: the caller's Host.Register does, with the local skills.
func (r *Remote) LoadCache(ctx context.Context) error {
	cat, b, err := loadCatalog(r.cfg.StateDir)
	if err != nil || cat == nil {
		return err
	}
	return r.apply(ctx, cat, b, false)
}

// Skills lists the proxies' catalog ids.
func (r *Remote) Skills() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.proxies))
	for id := range r.proxies {
		out = append(out, id)
	}
	return out
}

// proxy returns the proxy of a catalog id, nil when there is none.
func (r *Remote) proxy(catalogID string) *RemoteSkill {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.proxies[catalogID]
}

// proxyByBusID returns the proxy a host knows as busID, nil when none.
func (r *Remote) proxyByBusID(busID string) *RemoteSkill {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, p := range r.proxies {
		if p.busID() == busID {
			return p
		}
	}
	return nil
}

// activeSkill is the cloud skill active in a bus session: of the kept
// conversations of the session that belong to a proxy and were updated
// within ActiveWindow, the newest. It returns the skill as CONTEXT names
// it to the hub ({id: catalog id, session: the stored session}), the
// listen contexts of a question it still waits on, and whether there is
// one; none is CONTEXT skill {id: null}.
func (r *Remote) activeSkill(busSession string) (protocol.SkillData, []string, bool) {
	if r.cfg.Conversations == nil {
		return protocol.SkillData{}, nil, false
	}
	all, err := r.cfg.Conversations.Conversations()
	if err != nil {
		r.log.Warn("remote fallback: kept conversations not read; no skill named in CONTEXT", "err", err)
		return protocol.SkillData{}, nil, false
	}
	now := r.cfg.Now()
	var best *store.Conversation
	var proxy *RemoteSkill
	for i := range all {
		c := &all[i]
		if c.BusSession != busSession || now.Sub(c.UpdatedAt) > r.cfg.ActiveWindow {
			continue
		}
		if best != nil && !c.UpdatedAt.After(best.UpdatedAt) {
			continue
		}
		if p := r.proxyByBusID(c.SkillID); p != nil {
			best, proxy = c, p
		}
	}
	if best == nil {
		return protocol.SkillData{}, nil, false
	}
	id := proxy.cs.ID
	return protocol.SkillData{ID: &id, Session: best.Skill.Session}, best.Listen, true
}

// Apply makes the host's proxies match cat: proxies of skills gone or
// changed are removed, new and changed ones added, and the intents
// registered again. A skill whose proxy cannot be built is logged and
// left out.
func (r *Remote) Apply(ctx context.Context, cat *wire.Catalog) error {
	b, err := cat.Encode()
	if err != nil {
		return err
	}
	return r.apply(ctx, cat, b, true)
}

func (r *Remote) apply(ctx context.Context, cat *wire.Catalog, enc []byte, register bool) error {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.mu.RLock()
	same := bytes.Equal(r.current, enc)
	old := make(map[string]*RemoteSkill, len(r.proxies))
	for k, v := range r.proxies {
		old[k] = v
	}
	r.mu.RUnlock()
	if same {
		return nil
	}
	next := map[string]*RemoteSkill{}
	var errs []error
	want := map[string]wire.CatalogSkill{}
	for _, cs := range cat.Skills {
		want[cs.ID] = cs
	}
	for id, p := range old {
		if cs, ok := want[id]; ok && sameSkill(p.cs, cs) {
			next[id] = p
			continue
		}
		if err := r.cfg.Host.Remove(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	for _, cs := range cat.Skills {
		if next[cs.ID] != nil {
			continue
		}
		p, err := newRemoteSkill(r, cs)
		if err == nil {
			err = r.cfg.Host.Add(p)
		}
		if err != nil {
			r.log.Error("cloud skill left out", "skill_id", cs.ID, "err", err)
			errs = append(errs, err)
			continue
		}
		next[cs.ID] = p
	}
	r.mu.Lock()
	r.proxies, r.current = next, enc
	r.mu.Unlock()
	if register {
		if err := r.cfg.Host.Register(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	r.log.Info("hub catalog applied", "skills", len(next))
	return errors.Join(errs...)
}

func sameSkill(a, b wire.CatalogSkill) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// LinkChanged is to be called with every state of the client's link (the
// client's OnState): a link coming up fetches the catalog again.
func (r *Remote) LinkChanged(st LinkState) {
	if st.Status != Up {
		return
	}
	select {
	case r.upCh <- struct{}{}:
	default:
	}
}

// Start serves TopicTrigger and keeps the catalog fresh until Close.
func (r *Remote) Start(ctx context.Context) error {
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if r.cfg.Bus != nil {
		sub, err := r.cfg.Bus.Subscribe(TopicTrigger, r.onTrigger, bus.WithName("hub-trigger"),
			bus.WithQueue(16, bus.DropNewest))
		if err != nil {
			r.cancel()
			return fmt.Errorf("hub remote skills: %w", err)
		}
		r.sub = sub
	}
	if r.client.Available() {
		r.LinkChanged(LinkState{Status: Up})
	}
	r.wg.Add(1)
	go func() { // owned: Close cancels and waits
		defer r.wg.Done()
		r.loop(ctx)
	}()
	return nil
}

func (r *Remote) loop(ctx context.Context) {
	tick := time.NewTicker(r.cfg.Refresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.upCh:
			r.refresh(ctx)
		case <-tick.C:
			if r.client.Available() {
				r.refresh(ctx)
			}
		case t := <-r.triggerCh:
			select { // a link that just came up fetches the catalog first
			case <-r.upCh:
				r.refresh(ctx)
			default:
			}
			tctx, cancel := context.WithTimeout(ctx, r.client.cfg.ConnectTimeout+r.client.cfg.TransactionTimeout)
			if err := r.Trigger(tctx, t.source, t.looper); err != nil {
				r.log.Warn("hub trigger failed", "source", t.source, "err", err)
			}
			cancel()
		}
	}
}

// Fetched is closed once the first catalog fetch has ended, whether it
// brought a catalog or not: a robot starting up waits for it (bounded) so
// the first things said can already reach the cloud skills.
func (r *Remote) Fetched() <-chan struct{} { return r.fetched }

// Refresh fetches the catalog and applies it when it changed, caching it.
func (r *Remote) refresh(ctx context.Context) {
	defer r.fetchedOnce.Do(func() { close(r.fetched) })
	cat, enc, err := r.client.Catalog(ctx)
	if err != nil {
		r.log.Warn("hub catalog not fetched", "err", err)
		return
	}
	if err := r.apply(ctx, cat, enc, true); err != nil {
		r.log.Warn("hub catalog applied with errors", "err", err)
	}
	if err := saveCatalog(r.cfg.StateDir, enc); err != nil {
		r.log.Warn("hub catalog not cached", "err", err)
	}
}

// onTrigger takes a TopicTrigger request off the bus.
func (r *Remote) onTrigger(_ context.Context, m bus.Message) {
	src := m.DataString("source")
	if src != protocol.TriggerNewArrival && src != protocol.TriggerSurprise {
		r.log.Warn("hub trigger refused: source must be NEW_ARRIVAL or SURPRISE", "source", clip(src))
		return
	}
	looper := m.DataString("looper_id")
	if len(looper) > 256 {
		r.log.Warn("hub trigger refused: looper_id over 256 bytes")
		return
	}
	select {
	case r.triggerCh <- triggerReq{src, looper}:
	default:
		r.log.Warn("hub trigger dropped: one is already waiting", "source", src)
	}
}

// Close stops serving triggers and refreshing, waiting for both.
func (r *Remote) Close(ctx context.Context) error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	if r.sub != nil {
		r.sub.Close()
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("hub remote skills: %w", ctx.Err())
	}
}
