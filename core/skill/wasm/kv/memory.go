package kv

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Memory is skill storage kept in memory, with Store's quotas: for a robot
// run without a state folder. It is safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	skills map[string]map[string][]byte
}

// NewMemory returns empty storage.
func NewMemory() *Memory { return &Memory{skills: map[string]map[string][]byte{}} }

// Get returns a copy of the value of key, or ErrNotFound.
func (m *Memory) Get(skill, key string) ([]byte, error) {
	if err := checkArgs("reading skill storage", skill, key); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.skills[skill][key]
	if !ok {
		return nil, fmt.Errorf("reading key %q of skill %s: %w", key, skill, ErrNotFound)
	}
	return bytes.Clone(v), nil
}

// Set stores a copy of value under key, unless that would break a quota.
func (m *Memory) Set(skill, key string, value []byte) error {
	if err := checkArgs("writing skill storage", skill, key); err != nil {
		return err
	}
	if err := checkValue(value); err != nil {
		return fmt.Errorf("writing key %q of skill %s: %w", key, skill, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	kv := m.skills[skill]
	old := -1
	if v, ok := kv[key]; ok {
		old = len(v)
	}
	if err := m.usage(skill).after(key, old, len(value)).check(skill); err != nil {
		return fmt.Errorf("writing key %q of skill %s: %w", key, skill, err)
	}
	if kv == nil {
		kv = map[string][]byte{}
		m.skills[skill] = kv
	}
	kv[key] = bytes.Clone(value)
	if kv[key] == nil {
		kv[key] = []byte{}
	}
	return nil
}

// Delete removes key; a missing key is no error.
func (m *Memory) Delete(skill, key string) error {
	if err := checkArgs("deleting from skill storage", skill, key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.skills[skill], key)
	return nil
}

// Keys lists skill's keys starting with prefix, sorted, at most
// MaxListKeys.
func (m *Memory) Keys(skill, prefix string) ([]string, error) {
	if err := checkSkill(skill); err != nil {
		return nil, fmt.Errorf("listing skill storage: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.skills[skill] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) > MaxListKeys {
		out = out[:MaxListKeys]
	}
	return out, nil
}

// Usage reports what skill holds.
func (m *Memory) Usage(skill string) (Usage, error) {
	if err := checkSkill(skill); err != nil {
		return Usage{}, fmt.Errorf("skill storage usage: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage(skill), nil
}

func (m *Memory) usage(skill string) Usage {
	var u Usage
	for k, v := range m.skills[skill] {
		u.Keys++
		u.Bytes += len(k) + len(v)
	}
	return u
}
