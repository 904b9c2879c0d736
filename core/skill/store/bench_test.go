package store

import (
	"strconv"
	"testing"
)

// The per-turn cost of a multi-turn skill: one durable write of its
// conversation, one read on the next turn. Each Put fsyncs, so the figure
// depends on the disk far more than on the CPU.
func BenchmarkPutConversation(b *testing.B) {
	s, _ := openTemp(b, Options{})
	c := timerConversation("default", "timer")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Skill.Session.NodeID = i
		i++
		if err := s.PutConversation(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConversation(b *testing.B) {
	s, _ := openTemp(b, Options{})
	for i := range 64 {
		if err := s.PutConversation(timerConversation("s"+strconv.Itoa(i), "timer")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := s.Conversation("s42", "timer"); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
