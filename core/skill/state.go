package skill

import (
	"errors"
	"sort"
	"sync"

	"github.com/openjibo/jibod/core/skill/store"
)

// Conversations keeps skills' sessions between turns.
type Conversations interface {
	PutConversation(c store.Conversation) error
	Conversation(busSession, skillID string) (store.Conversation, bool, error)
	DeleteConversation(busSession, skillID string) error
	Conversations() ([]store.Conversation, error)
}

// MemoryState keeps conversations and timers in memory, for tools and
// tests that need nothing to survive a restart. It implements
// Conversations and the scheduler's store.
type MemoryState struct {
	mu     sync.Mutex
	m      map[[2]string]store.Conversation
	timers map[string]store.Timer
}

// NewMemoryState returns an empty in-memory store.
func NewMemoryState() *MemoryState {
	return &MemoryState{m: map[[2]string]store.Conversation{}, timers: map[string]store.Timer{}}
}

// PutTimer keeps t, replacing a timer with its id.
func (c *MemoryState) PutTimer(t store.Timer) error {
	if t.ID == "" {
		return errors.New("keeping a timer: empty id")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers[t.ID] = t
	return nil
}

// DeleteTimer forgets a timer; forgetting none is no error.
func (c *MemoryState) DeleteTimer(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.timers, id)
	return nil
}

// Timers lists the timers, soonest first.
func (c *MemoryState) Timers() ([]store.Timer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]store.Timer, 0, len(c.timers))
	for _, t := range c.timers {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Due.Before(out[j].Due) })
	return out, nil
}

// PutConversation stores c.
func (c *MemoryState) PutConversation(v store.Conversation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[[2]string{v.BusSession, v.SkillID}] = v
	return nil
}

// Conversation returns the conversation of a skill in a bus session.
func (c *MemoryState) Conversation(busSession, skillID string) (store.Conversation, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[[2]string{busSession, skillID}]
	return v, ok, nil
}

// DeleteConversation forgets a conversation; forgetting none is no error.
func (c *MemoryState) DeleteConversation(busSession, skillID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, [2]string{busSession, skillID})
	return nil
}

// Conversations lists every conversation.
func (c *MemoryState) Conversations() ([]store.Conversation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]store.Conversation, 0, len(c.m))
	for _, v := range c.m {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].BusSession+"\x00"+out[i].SkillID < out[j].BusSession+"\x00"+out[j].SkillID
	})
	return out, nil
}
