package people

import (
	"context"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// announceTimeout bounds publishing one change.
const announceTimeout = time.Second

// Publisher publishes on the robot's bus; *bus.Bus is one.
type Publisher interface {
	Publish(ctx context.Context, m bus.Message) error
}

// Announce watches the file every interval (see Watch) in a goroutine of
// its own and publishes each change as TopicChanged {count}, where the
// speech grammar's watcher takes it. The function it returns stops the
// goroutine and waits for it. log nil means slog.Default().
func (s *Store) Announce(ctx context.Context, b Publisher, interval time.Duration, log *slog.Logger) (stop func()) {
	if log == nil {
		log = slog.Default()
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { // owned: stop cancels it and waits
		defer close(done)
		s.Watch(wctx, interval, func(l protocol.Loop) {
			log.Info("loop changed", "members", len(l.Users))
			m := bus.NewMessage(TopicChanged, map[string]any{"count": len(l.Users)})
			pctx, cancel := context.WithTimeout(wctx, announceTimeout)
			defer cancel()
			if err := b.Publish(pctx, m); err != nil {
				log.Warn("loop change not announced", "err", err)
			}
		})
	}()
	return func() { cancel(); <-done }
}
