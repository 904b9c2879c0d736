package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Handler receives messages for one subscription, one at a time and in
// publish order. Its context is cancelled when the subscription or the bus
// closes. A panicking handler is recovered and logged; the subscription lives on.
type Handler func(ctx context.Context, m Message)

// Overflow says what a full subscriber queue does with a new message.
type Overflow int

const (
	// DropNewest discards the message being published for this subscriber
	// only, counts it, and logs. Publishers never wait. This is the default:
	// one slow consumer must not stall the robot.
	DropNewest Overflow = iota
	// DropOldest discards the oldest queued message to make room.
	DropOldest
	// Block makes the publisher wait for room, bounded by the publisher's
	// context; every other publisher waits with it, since fan-out is atomic.
	// For consumers that must see everything (traces). Their handlers must
	// never publish: that can deadlock against a full queue.
	Block
)

func (o Overflow) String() string {
	switch o {
	case DropNewest:
		return "drop-newest"
	case DropOldest:
		return "drop-oldest"
	case Block:
		return "block"
	}
	return fmt.Sprintf("overflow(%d)", int(o))
}

// DefaultQueueLen is a subscriber queue's capacity unless set otherwise.
const DefaultQueueLen = 256

// ErrClosed is returned by Publish and Subscribe once the bus is closing.
var ErrClosed = errors.New("bus closed")

// Options configure a Bus.
type Options struct {
	Logger *slog.Logger
}

// Bus is an in-process publish/subscribe bus. Each subscription owns one
// goroutine that drains a bounded queue; the bus owns those goroutines and
// Close stops and waits for all of them.
type Bus struct {
	log *slog.Logger

	mu     sync.RWMutex
	exact  map[string][]*Subscription
	prefix []*Subscription
	closed bool
	nextID uint64

	// pubMu makes each fan-out atomic with respect to other publishes, so
	// no subscriber sees a message before the message that caused it.
	pubMu sync.Mutex

	wg        sync.WaitGroup
	published atomic.Uint64
	rejected  atomic.Uint64
}

// New returns an empty bus.
func New(opts Options) *Bus {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Bus{log: log.With("component", "bus"), exact: map[string][]*Subscription{}}
}

// SubOption configures one subscription.
type SubOption func(*Subscription)

// WithQueue sets the queue capacity (at least 1) and the overflow policy.
func WithQueue(capacity int, policy Overflow) SubOption {
	return func(s *Subscription) {
		if capacity < 1 {
			capacity = 1
		}
		s.capacity = capacity
		s.policy = policy
	}
}

// WithOnDrop calls fn with each message this subscriber loses to a full
// queue, so its owner can say so (the orchestrator ends a dropped utterance
// with one ovos.utterance.handled). fn runs on the publisher's goroutine
// and must neither block nor publish.
func WithOnDrop(fn func(Message)) SubOption { return func(s *Subscription) { s.onDrop = fn } }

// WithName names the subscription in logs and statistics.
func WithName(name string) SubOption { return func(s *Subscription) { s.name = name } }

// Subscription is one consumer's registration.
type Subscription struct {
	bus      *Bus
	id       uint64
	name     string
	patterns []string
	exacts   []string // exact topics among patterns
	prefixes []string // prefixes among patterns ("" matches everything)
	handler  Handler
	capacity int
	policy   Overflow
	onDrop   func(Message)

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	queue    []Message // ring buffer
	head     int
	count    int
	closing  bool // no more enqueues; drain what is queued then exit
	notify   chan struct{}
	space    chan struct{}
	dropped  atomic.Uint64
	lastWarn time.Time
}

// ValidatePattern checks a subscription pattern: an exact topic, or a prefix
// ending in "*" ("ovos.intent.*", or "*" for everything).
func ValidatePattern(p string) error {
	if p == "*" {
		return nil
	}
	if pre, ok := strings.CutSuffix(p, "*"); ok {
		if strings.Contains(pre, "*") || pre == "" {
			return fmt.Errorf("pattern %q: '*' may appear only once, at the end", p)
		}
		return nil
	}
	if err := ValidateTopic(p); err != nil {
		return fmt.Errorf("pattern: %w", err)
	}
	return nil
}

// Subscribe registers h for messages whose topic equals pattern, or starts
// with it when pattern ends in "*". The returned subscription is live
// immediately.
func (b *Bus) Subscribe(pattern string, h Handler, opts ...SubOption) (*Subscription, error) {
	return b.SubscribeAll([]string{pattern}, h, opts...)
}

// SubscribeAll is Subscribe for several patterns sharing one queue, so h
// sees messages of all of them in the order they were published. A message
// matching more than one pattern is delivered once.
func (b *Bus) SubscribeAll(patterns []string, h Handler, opts ...SubOption) (*Subscription, error) {
	if len(patterns) == 0 {
		return nil, errors.New("subscribe: no pattern")
	}
	for _, p := range patterns {
		if err := ValidatePattern(p); err != nil {
			return nil, err
		}
	}
	if h == nil {
		return nil, errors.New("subscribe: nil handler")
	}
	s := &Subscription{bus: b, patterns: append([]string(nil), patterns...), handler: h, capacity: DefaultQueueLen, policy: DropNewest,
		done: make(chan struct{}), notify: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	for _, o := range opts {
		o(s)
	}
	for _, p := range patterns {
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			s.prefixes = append(s.prefixes, pre)
		} else {
			s.exacts = append(s.exacts, p)
		}
	}
	if s.name == "" {
		s.name = strings.Join(patterns, ",")
	}
	s.queue = make([]Message, s.capacity)
	s.ctx, s.cancel = context.WithCancel(context.Background())

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		s.cancel()
		return nil, ErrClosed
	}
	b.nextID++
	s.id = b.nextID
	if len(s.prefixes) > 0 {
		b.prefix = append(b.prefix, s)
	}
	for _, e := range s.exacts {
		if !contains(b.exact[e], s) {
			b.exact[e] = append(b.exact[e], s)
		}
	}
	b.wg.Add(1)
	b.mu.Unlock()

	go s.run()
	return s, nil
}

// Publish validates m (MSG-03/04/05), normalises its data and context into
// a private copy, and queues it for every matching subscriber. A malformed
// message is dropped with an error and reaches no one. Publish waits only
// for Block subscribers, and never longer than ctx allows.
func (b *Bus) Publish(ctx context.Context, m Message) error {
	if err := m.Validate(); err != nil {
		b.rejected.Add(1)
		return err
	}
	data, err := NormalizeMap(m.Data)
	if err != nil {
		b.rejected.Add(1)
		return fmt.Errorf("%w: %s: data: %w", ErrMalformed, m.Type, err)
	}
	c, err := NormalizeMap(m.Context)
	if err != nil {
		b.rejected.Add(1)
		return fmt.Errorf("%w: %s: context: %w", ErrMalformed, m.Type, err)
	}
	m = Message{Type: m.Type, Data: data, Context: c}

	b.pubMu.Lock()
	defer b.pubMu.Unlock()
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return ErrClosed
	}
	targets := make([]*Subscription, 0, 8)
	targets = append(targets, b.exact[m.Type]...)
	for _, s := range b.prefix {
		if s.matchesPrefix(m.Type) && !contains(targets, s) {
			targets = append(targets, s)
		}
	}
	b.mu.RUnlock()

	b.published.Add(1)
	for _, s := range targets {
		s.enqueue(ctx, m)
	}
	return nil
}

func (s *Subscription) enqueue(ctx context.Context, m Message) {
	for {
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			return
		}
		if s.count < s.capacity {
			s.queue[(s.head+s.count)%s.capacity] = m
			s.count++
			room := s.count < s.capacity
			s.mu.Unlock()
			select {
			case s.notify <- struct{}{}:
			default:
			}
			if room && s.policy == Block {
				// Pass the baton: another blocked publisher may fit too.
				select {
				case s.space <- struct{}{}:
				default:
				}
			}
			return
		}
		switch s.policy {
		case DropOldest:
			old := s.queue[s.head]
			s.queue[s.head] = m
			s.head = (s.head + 1) % s.capacity
			s.mu.Unlock()
			s.noteDrop(old)
			return
		case Block:
			s.mu.Unlock()
			select {
			case <-s.space:
				continue
			case <-s.ctx.Done():
				s.noteDrop(m)
				return
			case <-ctx.Done():
				s.noteDrop(m)
				return
			}
		default:
			s.mu.Unlock()
			s.noteDrop(m)
			return
		}
	}
}

// noteDrop counts a dropped message and logs at most once a second per
// subscription, so a flood cannot flood the log too.
func (s *Subscription) noteDrop(m Message) {
	topic := m.Type
	if s.onDrop != nil {
		s.onDrop(m)
	}
	n := s.dropped.Add(1)
	s.mu.Lock()
	now := time.Now()
	warn := now.Sub(s.lastWarn) >= time.Second
	if warn {
		s.lastWarn = now
	}
	s.mu.Unlock()
	if warn {
		s.bus.log.Warn("subscriber queue full, message dropped", "subscriber", s.name,
			"policy", s.policy.String(), "topic", topic, "dropped_total", n)
	}
}

func (s *Subscription) run() {
	defer s.bus.wg.Done()
	defer close(s.done)
	for {
		s.mu.Lock()
		if s.count == 0 {
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return
			}
			select {
			case <-s.notify:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		m := s.queue[s.head]
		s.queue[s.head] = Message{}
		s.head = (s.head + 1) % s.capacity
		s.count--
		s.mu.Unlock()
		select {
		case s.space <- struct{}{}:
		default:
		}
		if s.ctx.Err() != nil {
			return
		}
		s.deliver(m)
	}
}

func (s *Subscription) deliver(m Message) {
	defer func() {
		if r := recover(); r != nil {
			s.bus.log.Error("subscriber panicked; message skipped", "subscriber", s.name, "topic", m.Type,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	s.handler(s.ctx, m)
}

// Stop unsubscribes without waiting: no new messages are queued, queued ones
// are discarded, and the handler's context is cancelled. Safe to call from
// the subscription's own handler.
func (s *Subscription) Stop() {
	s.bus.remove(s)
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
}

// Close is Stop followed by waiting for the handler goroutine to exit. It
// must not be called from the subscription's own handler (use Stop there).
func (s *Subscription) Close() {
	s.Stop()
	<-s.done
}

// Drain unsubscribes and lets the handler finish what is already queued
// before it stops, so nothing published before Drain is lost. When ctx ends
// first, the handler's context is cancelled and what is left is discarded;
// Drain still waits for the handler to return. It must not be called from
// the subscription's own handler.
func (s *Subscription) Drain(ctx context.Context) error {
	s.bus.remove(s)
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		s.cancel()
		<-s.done
		return fmt.Errorf("draining subscriber %s: %w", s.name, ctx.Err())
	}
}

// Dropped reports how many messages this subscriber lost to a full queue.
func (s *Subscription) Dropped() uint64 { return s.dropped.Load() }

// Patterns are the patterns the subscription was made with.
func (s *Subscription) Patterns() []string { return append([]string(nil), s.patterns...) }

func (s *Subscription) matchesPrefix(topic string) bool {
	for _, p := range s.prefixes {
		if strings.HasPrefix(topic, p) {
			return true
		}
	}
	return false
}

func contains(l []*Subscription, s *Subscription) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (b *Bus) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prefix = without(b.prefix, s)
	for _, e := range s.exacts {
		l := without(b.exact[e], s)
		if len(l) == 0 {
			delete(b.exact, e)
		} else {
			b.exact[e] = l
		}
	}
}

func without(l []*Subscription, s *Subscription) []*Subscription {
	out := make([]*Subscription, 0, len(l))
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// Close stops accepting publishes, lets every subscriber drain what it has
// queued, and waits for all subscriber goroutines. When ctx ends first, the
// handlers' contexts are cancelled and queued messages are discarded; Close
// still waits for the goroutines to return.
func (b *Bus) Close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.wg.Wait()
		return nil
	}
	b.closed = true
	subs := b.allLocked()
	b.mu.Unlock()

	for _, s := range subs {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, s := range subs {
			s.cancel()
		}
		<-done
		return fmt.Errorf("closing bus: subscribers did not drain: %w", ctx.Err())
	}
}

// Stats is a snapshot of bus counters.
type Stats struct {
	Published   uint64            // messages accepted by Publish
	Rejected    uint64            // malformed messages refused by Publish
	Subscribers int               // live subscriptions
	Dropped     map[string]uint64 // per subscriber name, only those that dropped
}

// Stats returns the current counters.
func (b *Bus) Stats() Stats {
	b.mu.RLock()
	defer b.mu.RUnlock()
	st := Stats{Published: b.published.Load(), Rejected: b.rejected.Load(), Dropped: map[string]uint64{}}
	for _, s := range b.allLocked() {
		st.Subscribers++
		if d := s.dropped.Load(); d > 0 {
			st.Dropped[s.name] += d
		}
	}
	return st
}

// allLocked lists every live subscription once; b.mu must be held.
func (b *Bus) allLocked() []*Subscription {
	var out []*Subscription
	seen := map[*Subscription]bool{}
	add := func(s *Subscription) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, l := range b.exact {
		for _, s := range l {
			add(s)
		}
	}
	for _, s := range b.prefix {
		add(s)
	}
	return out
}
