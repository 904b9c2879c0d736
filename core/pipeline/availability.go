package pipeline

// Availability is an optional interface of a Plugin whose backend can come
// and go while it stays loaded: a plugin that asks a cloud hub is loaded
// for the whole run but cannot answer while the link is down. The
// orchestrator asks it once per lifecycle, when it composes the effective
// pipeline (PIPE-13 step 2), and leaves an unavailable plugin out of that
// lifecycle: it is not called, and its absence counts as no failure for
// its circuit breaker (PIPE-10), so it is back as soon as it says so.
type Availability interface {
	// Available reports whether the plugin can answer now. It must return
	// at once: it is called on the lifecycle's path, without a context.
	Available() bool
}

// unavailable reports whether p says it cannot answer now.
func unavailable(p Plugin) bool {
	a, ok := p.(Availability)
	return ok && !a.Available()
}
