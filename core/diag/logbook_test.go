package diag

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLogBookTee(t *testing.T) {
	var procLog bytes.Buffer
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	book := NewLogBook(4, slog.LevelInfo)
	log := slog.New(book.Handler(slog.NewTextHandler(&procLog, &slog.HandlerOptions{Level: level})))

	log.Debug("not kept")
	log.Info("kept, not on stderr", "k", "v w")
	log.With("skill", "jibo/clock").WithGroup("req").Warn("both", "id", 7, slog.Group("g", "a", 1))
	log.Error("oops", "err", errors.New("disk full"))

	assert.NotContains(t, procLog.String(), "kept, not on stderr", "the process log keeps its own level")
	assert.Contains(t, procLog.String(), "both")
	recent := book.Recent(slog.LevelDebug, 0)
	require.Len(t, recent, 3)
	assert.Equal(t, "kept, not on stderr", recent[0].Message)
	assert.Equal(t, []string{`k="v w"`}, recent[0].Attrs)
	assert.True(t, strings.HasSuffix(recent[0].Line(), ` INFO  kept, not on stderr k="v w"`), recent[0].Line())
	assert.Equal(t, []string{"skill=jibo/clock", "req.id=7", "req.g.a=1"}, recent[1].Attrs)
	assert.Equal(t, []string{"err=\"disk full\""}, recent[2].Attrs)
	assert.Len(t, book.Recent(slog.LevelWarn, 0), 2)
	assert.Equal(t, "oops", book.Recent(slog.LevelInfo, 1)[0].Message, "n newest")

	// The ring keeps the newest.
	for i := range 10 {
		log.Info("n", "i", i)
	}
	recent = book.Recent(slog.LevelDebug, 0)
	require.Len(t, recent, 4)
	assert.Equal(t, []string{"i=6"}, recent[0].Attrs)
	assert.Equal(t, []string{"i=9"}, recent[3].Attrs)

	// Changing the process log's level at run time works through the tee.
	level.Set(slog.LevelDebug)
	log.Debug("now on stderr")
	assert.Contains(t, procLog.String(), "now on stderr")
}

func TestLogBookFollow(t *testing.T) {
	book := NewLogBook(10, slog.LevelInfo)
	log := slog.New(book.Handler(slog.DiscardHandler))
	ch, dropped, stop, err := book.Follow(slog.LevelDebug)
	require.NoError(t, err)
	assert.True(t, log.Enabled(context.Background(), slog.LevelDebug), "a debug follower turns debug records on")
	log.Debug("d")
	e := <-ch
	assert.Equal(t, "d", e.Message)
	assert.Empty(t, book.Recent(slog.LevelDebug, 0), "debug records are followed, not kept")

	for i := range followQueue + 5 {
		log.Info("flood", "i", i)
	}
	assert.EqualValues(t, 5, dropped(), "a follower that falls behind loses records, the logger never waits")
	stop()
	stop()
	assert.False(t, log.Enabled(context.Background(), slog.LevelDebug))

	var stops []func()
	for range maxFollowers {
		_, _, s, err := book.Follow(slog.LevelInfo)
		require.NoError(t, err)
		stops = append(stops, s)
	}
	_, _, _, err = book.Follow(slog.LevelInfo)
	assert.ErrorContains(t, err, "too many log followers")
	for _, s := range stops {
		s()
	}
}

func TestLogBookBoundsRecords(t *testing.T) {
	book := NewLogBook(10, slog.LevelInfo)
	log := slog.New(book.Handler(slog.DiscardHandler))
	var attrs []any
	for i := range 100 {
		attrs = append(attrs, fmt.Sprintf("k%d", i), strings.Repeat("v", 100))
	}
	log.Info(strings.Repeat("m", 5000), attrs...)
	e := book.Recent(slog.LevelInfo, 1)[0]
	assert.LessOrEqual(t, len(e.Message), maxLogMsg+len("..."))
	size := 0
	for _, a := range e.Attrs {
		size += len(a)
	}
	assert.LessOrEqual(t, size, maxLogAttrs+300)
}

func BenchmarkLogTee(b *testing.B) {
	book := NewLogBook(0, slog.LevelInfo)
	log := slog.New(book.Handler(slog.DiscardHandler))
	b.ReportAllocs()
	for b.Loop() {
		log.Info("utterance handled", "utterance_id", "6db0f897", "ms", 12.5)
	}
}
