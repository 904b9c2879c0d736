package people

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

type published struct {
	mu   sync.Mutex
	msgs []bus.Message
	err  error
}

func (p *published) Publish(_ context.Context, m bus.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, m)
	return p.err
}

func (p *published) counts() []any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []any
	for _, m := range p.msgs {
		if m.Type == TopicChanged {
			out = append(out, m.Data["count"])
		}
	}
	return out
}

// Each change of the file, whoever made it, is announced on the bus with
// the number of people; a publish that fails is logged and watching goes
// on; stop ends it.
func TestAnnounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		robot, cli := open(t, dir), open(t, dir)
		pub := &published{}
		stop := robot.Announce(context.Background(), pub, time.Second, slog.New(slog.DiscardHandler))
		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Empty(t, pub.counts(), "nothing changed, nothing announced")

		_, err := cli.Add(Member{FirstName: "Ann"}, false)
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []any{1}, pub.counts())

		pub.mu.Lock()
		pub.err = errors.New("bus closed")
		pub.mu.Unlock()
		_, err = cli.Add(Member{FirstName: "Bo"}, false)
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		pub.mu.Lock()
		pub.err = nil
		pub.mu.Unlock()
		_, err = cli.Add(Member{FirstName: "Cy"}, false)
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []any{1, 2, 3}, pub.counts())
		stop()
	})
}
