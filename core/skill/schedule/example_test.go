package schedule_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/skill/schedule"
	"github.com/openjibo/jibod/core/skill/store"
)

// The timer skill's alarm: persisted when scheduled, so it rings even if
// jibod restarts before it is due.
func Example() {
	dir, _ := os.MkdirTemp("", "jibod-state")
	defer os.RemoveAll(dir)
	st, err := store.Open(filepath.Join(dir, "skills.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	s, err := schedule.New(schedule.Config{Store: st, Fire: func(ctx context.Context, t store.Timer) {
		fmt.Println("launch", t.SkillID, "with memo", string(t.Memo))
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := s.Schedule(context.Background(), store.Timer{ID: "pasta", SkillID: "timer",
		Due: time.Now().Add(5 * time.Minute), Memo: []byte(`{"alarm":"pasta"}`), Label: "pasta"})
	fmt.Println(id, err)
	onDisk, _ := st.Timers()
	fmt.Println(len(onDisk), "timer on disk")
	fmt.Println(s.Cancel(context.Background(), "pasta"))
	// Output:
	// pasta <nil>
	// 1 timer on disk
	// <nil>
}
