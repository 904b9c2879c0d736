package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// A timer skill asked "for how long?"; its conversation is kept on disk
// and read back after jibod restarts.
func Example() {
	dir, _ := os.MkdirTemp("", "jibod-state")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "skills.db")
	now := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

	s, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	skill := protocol.Skill("timer")
	skill.Session = &protocol.Session{ID: "s-1", NodeID: 2, Data: []byte(`{"label":"pasta"}`)}
	err = s.PutConversation(store.Conversation{BusSession: "default", SkillID: "timer", Skill: skill,
		Listen: []string{"timer/duration"}, ExpiresAt: now.Add(30 * time.Second), UpdatedAt: now})
	fmt.Println("stored:", err)
	_ = s.Close()

	s, _ = store.Open(path, store.Options{}) // after the restart
	defer s.Close()
	c, ok, err := s.Conversation("default", "timer")
	fmt.Println(ok, err, c.Skill.Session.NodeID, string(c.Skill.Session.Data), c.Listen)

	_, err = store.Open(path, store.Options{LockTimeout: 10 * time.Millisecond})
	fmt.Println(err != nil && errors.Is(err, store.ErrInUse))
	// Output:
	// stored: <nil>
	// true <nil> 2 {"label":"pasta"} [timer/duration]
	// true
}
