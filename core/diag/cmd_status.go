package diag

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/motion"
)

const statusHelp = `Prints, one line each:
uptime and version; the board; the hub link (none is configured on an offline robot);
cpu: jibod's share of one core since the last status (or since start) and the system load;
memory: jibod's resident memory, Go heap and goroutines, and the system's available memory;
temperature and storage (the state folder's free space) where the board reports them;
control loop: its rate and how late its ticks start (p50, p99, max since start), ticks missed, and a fault if it stalled;
motors: powered or not, and the pose;
audio level: the microphone's loudness over a quarter second (dBFS: 0 is full scale, about -90 is silence);
bus: messages published and refused, subscribers, and messages dropped by slow subscribers;
shell: open sessions and who is in technician mode;
last errors: the newest warnings and errors from the log.`

// statusAudioSpan is how long status listens to the microphone.
const statusAudioSpan = 250 * time.Millisecond

// cpuSampler turns CPU time into a share of one core between two looks.
type cpuSampler struct {
	mu   sync.Mutex
	wall time.Time
	cpu  time.Duration
}

func (s *cpuSampler) start(now time.Time) {
	c, _ := cpuTime()
	s.wall, s.cpu = now, c
}

// sample returns the share since the last sample and over how long.
func (s *cpuSampler) sample(now time.Time) (pct float64, over time.Duration, ok bool) {
	c, ok := cpuTime()
	if !ok {
		return 0, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	over = now.Sub(s.wall)
	if over <= 0 {
		return 0, 0, false
	}
	pct = 100 * float64(c-s.cpu) / float64(over)
	s.wall, s.cpu = now, c
	return pct, over, true
}

func versionInfo() map[string]any {
	return map[string]any{"go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
}

// statusReport is what status prints; the JSON form of it.
type statusReport struct {
	Version     string            `json:"version"`
	Go          string            `json:"go"`
	Platform    string            `json:"platform"`
	Board       string            `json:"board"`
	Started     time.Time         `json:"started"`
	UptimeS     float64           `json:"uptime_s"`
	Hub         string            `json:"hub"`
	CPU         *cpuReport        `json:"cpu,omitempty"`
	Memory      memReport         `json:"memory"`
	Temperature *float64          `json:"temperature_c,omitempty"`
	Storage     *storageReport    `json:"storage,omitempty"`
	Loop        *loopReport       `json:"control_loop,omitempty"`
	Motors      *motorsReport     `json:"motors,omitempty"`
	Audio       map[string]any    `json:"audio"`
	Bus         map[string]any    `json:"bus,omitempty"`
	Sessions    []sessionInfo     `json:"sessions"`
	LastErrors  []LogEntry        `json:"last_errors"`
	Extra       map[string]string `json:"-"`
}

type cpuReport struct {
	ProcessPct float64 `json:"process_pct_of_one_core"`
	OverS      float64 `json:"over_s"`
	Load       string  `json:"load,omitempty"`
	Cores      int     `json:"cores"`
}

type memReport struct {
	ResidentBytes int64 `json:"resident_bytes,omitempty"`
	HeapBytes     int64 `json:"heap_bytes"`
	Goroutines    int   `json:"goroutines"`
	SystemTotal   int64 `json:"system_total_bytes,omitempty"`
	SystemAvail   int64 `json:"system_available_bytes,omitempty"`
}

type storageReport struct {
	Dir   string `json:"dir"`
	Free  int64  `json:"free_bytes"`
	Total int64  `json:"total_bytes"`
}

type loopReport struct {
	RateHz int     `json:"rate_hz"`
	Ticks  uint64  `json:"ticks"`
	Missed uint64  `json:"missed"`
	P50ms  float64 `json:"p50_ms"`
	P99ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
	Fault  string  `json:"fault,omitempty"`
}

type motorsReport struct {
	Powered bool               `json:"powered"`
	Pose    map[string]float64 `json:"pose_rad"`
	Moving  bool               `json:"moving"`
}

func (s *Server) status(ctx context.Context) statusReport {
	env := s.env
	now := s.now()
	v := versionInfo()
	r := statusReport{Version: env.Version, Go: v["go"].(string), Platform: v["platform"].(string), Board: env.Board,
		Started: env.Started, UptimeS: now.Sub(env.Started).Seconds(), Hub: "none configured (offline)"}
	if env.Hub != nil {
		r.Hub = env.Hub.Link().Summary
	}
	if pct, over, ok := s.cpu.sample(time.Now()); ok { // CPU time is real time, whatever the clock
		r.CPU = &cpuReport{ProcessPct: pct, OverS: over.Seconds(), Cores: runtime.NumCPU()}
		r.CPU.Load, _ = loadAverage()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.Memory = memReport{HeapBytes: int64(ms.HeapAlloc), Goroutines: runtime.NumGoroutine()}
	r.Memory.ResidentBytes, _ = residentBytes()
	r.Memory.SystemTotal, r.Memory.SystemAvail, _ = systemMemory()
	if t, ok := temperature(); ok {
		r.Temperature = &t
	}
	if env.StateDir != "" {
		if free, total, ok := diskFree(env.StateDir); ok {
			r.Storage = &storageReport{Dir: env.StateDir, Free: free, Total: total}
		}
	}
	if m := env.Motion; m != nil {
		st := m.Stats()
		lr := &loopReport{Ticks: st.Ticks, Missed: st.Missed, P50ms: msf(st.P50), P99ms: msf(st.P99), MaxMs: msf(st.Max)}
		if p := m.Period(); p > 0 {
			lr.RateHz = int(time.Second / p)
		}
		if err := m.Fault(); err != nil {
			lr.Fault = err.Error()
		}
		r.Loop = lr
		pose := m.Pose()
		mr := &motorsReport{Powered: s.motorsPowered(), Pose: map[string]float64{}, Moving: m.Moving()}
		for i := range motion.NumAxes {
			mr.Pose[motion.AxisName(i)] = pose[i]
		}
		r.Motors = mr
	}
	r.Audio = map[string]any{}
	if env.Audio == nil {
		r.Audio["error"] = "no audio input on this robot"
	} else {
		actx, cancel := context.WithTimeout(ctx, 4*statusAudioSpan)
		lv, err := env.Audio.Level(actx, statusAudioSpan)
		cancel()
		if err != nil {
			r.Audio["error"] = err.Error()
		} else {
			r.Audio["rms_dbfs"], r.Audio["peak_dbfs"], r.Audio["source"] = finiteDB(lv.RMS), finiteDB(lv.Peak), lv.Source
		}
	}
	if st, ok := s.busStats(); ok {
		r.Bus = map[string]any{"published": st.Published, "rejected": st.Rejected, "subscribers": st.Subscribers, "dropped": st.Dropped}
	}
	r.Sessions = s.openSessions()
	r.LastErrors = []LogEntry{}
	if env.Logs != nil {
		r.LastErrors = env.Logs.Recent(slog.LevelWarn, 5)
	}
	return r
}

// motorsPowered reports whether every motor is enabled.
func (s *Server) motorsPowered() bool {
	if p := s.env.Power; p != nil && !p.On() {
		return false
	}
	if len(s.env.Motors) == 0 {
		return s.env.Motion != nil
	}
	for _, m := range s.env.Motors {
		if !m.Enabled() {
			return false
		}
	}
	return true
}

// finiteDB keeps a level printable as JSON: silence (-Inf) and NaN read
// as -120 dBFS, below anything a microphone gives.
func finiteDB(v float64) float64 {
	if math.IsNaN(v) || v < -120 {
		return -120
	}
	return v
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func cmdStatus(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("no arguments")
	}
	r := c.srv.status(c.ctx)
	if c.json {
		return c.emit(r)
	}
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k + ":", v}) }
	add("jibod", fmt.Sprintf("%s (%s, %s)", r.Version, r.Go, r.Platform))
	add("uptime", fmt.Sprintf("%s (since %s)", time.Duration(r.UptimeS*float64(time.Second)).Round(time.Second), r.Started.Format("2006-01-02 15:04:05")))
	add("board", orNone(r.Board))
	add("hub link", r.Hub)
	if r.CPU != nil {
		v := fmt.Sprintf("jibod %.1f%% of one core over %s", r.CPU.ProcessPct, roundDur(time.Duration(r.CPU.OverS*float64(time.Second))))
		if r.CPU.Load != "" {
			v += fmt.Sprintf("; load %s (%d cores)", r.CPU.Load, r.CPU.Cores)
		}
		add("cpu", v)
	}
	mem := fmt.Sprintf("heap %s, %d goroutines", bytesH(r.Memory.HeapBytes), r.Memory.Goroutines)
	if r.Memory.ResidentBytes > 0 {
		mem = fmt.Sprintf("jibod %s resident, ", bytesH(r.Memory.ResidentBytes)) + mem
	}
	if r.Memory.SystemTotal > 0 {
		mem += fmt.Sprintf("; system %s of %s available", bytesH(r.Memory.SystemAvail), bytesH(r.Memory.SystemTotal))
	}
	add("memory", mem)
	if r.Temperature != nil {
		add("temperature", fmt.Sprintf("%.1f C", *r.Temperature))
	}
	if r.Storage != nil {
		add("storage", fmt.Sprintf("%s: %s free of %s", r.Storage.Dir, bytesH(r.Storage.Free), bytesH(r.Storage.Total)))
	}
	if l := r.Loop; l != nil {
		v := fmt.Sprintf("%d Hz; lateness p50 %.2f ms, p99 %.2f ms, max %.2f ms; %d of %d ticks missed", l.RateHz, l.P50ms, l.P99ms, l.MaxMs, l.Missed, l.Ticks+l.Missed)
		if l.Fault != "" {
			v += "; FAULT: " + l.Fault
		} else {
			v += "; no fault"
		}
		add("control loop", v)
	} else {
		add("control loop", "none (no motion on this robot)")
	}
	if m := r.Motors; m != nil {
		power := "on"
		if !m.Powered {
			power = "OFF"
		}
		var pose []string
		for _, a := range axisNames() {
			pose = append(pose, fmt.Sprintf("%s %s", shortAxis(a), angleText(m.Pose[a])))
		}
		v := power + "; " + strings.Join(pose, ", ")
		if m.Moving {
			v += "; moving"
		}
		add("motors", v)
	}
	if e, ok := r.Audio["error"]; ok {
		add("audio level", fmt.Sprint(e))
	} else {
		add("audio level", fmt.Sprintf("%.1f dBFS (peak %.1f) from %v", r.Audio["rms_dbfs"], r.Audio["peak_dbfs"], r.Audio["source"]))
	}
	if r.Bus != nil {
		d := "none dropped"
		if m, _ := r.Bus["dropped"].(map[string]uint64); len(m) > 0 {
			var parts []string
			for k, n := range m {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
			d = "dropped: " + strings.Join(parts, ", ")
		}
		add("bus", fmt.Sprintf("%d messages, %d refused, %d subscribers, %s", r.Bus["published"], r.Bus["rejected"], r.Bus["subscribers"], d))
	}
	var ss []string
	for _, se := range r.Sessions {
		t := fmt.Sprintf("#%d %s", se.ID, se.From)
		if se.Technician {
			t += " (technician)"
		}
		ss = append(ss, t)
	}
	add("shell", fmt.Sprintf("%d %s: %s", len(ss), plural(len(ss), "session", "sessions"), strings.Join(ss, ", ")))
	if len(r.LastErrors) == 0 {
		add("last errors", "none")
	} else {
		add("last errors", "")
	}
	if err := c.table(rows); err != nil {
		return err
	}
	for _, e := range r.LastErrors {
		if err := c.printf("  %s\n", e.Line()); err != nil {
			return err
		}
	}
	return nil
}

// roundDur rounds d for people: seconds for long spans, milliseconds for
// short ones.
func roundDur(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// bytesH prints a byte count for people.
func bytesH(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
