package wire

import (
	"fmt"
	"time"
)

// Limits on what one link does about its peer's bad frames (frames that
// do not decode, audio nobody asked for, messages that belong to no
// transaction). A peer flooding a link with them must cost the other side
// neither a reply nor a log line per frame, and must not keep the link.
const (
	// BadFrameReportBurst and BadFrameReportRate bound the bad frames a
	// link answers with ERROR and logs one by one: a burst of
	// BadFrameReportBurst, then BadFrameReportRate a second. The rest are
	// counted and logged as one summary line with the next report.
	BadFrameReportBurst = 10
	BadFrameReportRate  = 1.0
	// BadFrameCloseBurst and BadFrameCloseRate bound the bad frames a
	// link tolerates: a burst of BadFrameCloseBurst, then
	// BadFrameCloseRate a second on average. The frame beyond that closes
	// the link with CloseBadFrame.
	BadFrameCloseBurst = 100
	BadFrameCloseRate  = 2.0
)

// bucket is a token bucket: burst tokens, refilled at rate a second.
type bucket struct {
	burst, rate float64
	tokens      float64
	last        time.Time
}

func newBucket(burst int, rate float64) bucket {
	return bucket{burst: float64(burst), rate: rate, tokens: float64(burst)}
}

// take spends one token at now, reporting false when there was none.
func (b *bucket) take(now time.Time) bool {
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	if b.last.IsZero() || now.After(b.last) {
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// BadFrames meters one link's bad frames against the limits above. The
// link's reader owns it; it is not safe for concurrent use. The zero value
// is not usable: use NewBadFrames.
type BadFrames struct {
	report, tolerate bucket
	unreported       int
	total            int
}

// NewBadFrames returns a meter with the package limits.
func NewBadFrames() *BadFrames {
	return &BadFrames{
		report:   newBucket(BadFrameReportBurst, BadFrameReportRate),
		tolerate: newBucket(BadFrameCloseBurst, BadFrameCloseRate),
	}
}

// Verdict is what to do about one bad frame.
type Verdict struct {
	// Report: answer this frame (ERROR) and log it.
	Report bool
	// Unreported is, when Report is set, how many bad frames went
	// unanswered and unlogged since the last report.
	Unreported int
	// Close: the link has sent more bad frames than it is allowed; close
	// it with CloseBadFrame and Reason.
	Close bool
	// Reason is the close frame's reason when Close is set.
	Reason string
}

// Bad notes one bad frame at now and says what to do about it. fault says
// whether the frame is the peer's fault; one that is not (a message
// refused because the hub is busy) counts for reports but never closes
// the link.
func (b *BadFrames) Bad(now time.Time, fault bool) Verdict {
	b.total++
	if fault && !b.tolerate.take(now) {
		return Verdict{Close: true, Reason: fmt.Sprintf("too many bad frames: %d (limit %d, then %g/s)",
			b.total, BadFrameCloseBurst, BadFrameCloseRate)}
	}
	if !b.report.take(now) {
		b.unreported++
		return Verdict{}
	}
	v := Verdict{Report: true, Unreported: b.unreported}
	b.unreported = 0
	return v
}

// Total is the number of bad frames noted.
func (b *BadFrames) Total() int { return b.total }
