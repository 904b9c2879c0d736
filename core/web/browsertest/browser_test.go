package browsertest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const page = `<!doctype html><input id="in"><p id="out"></p><script>
document.getElementById('in').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') document.getElementById('out').textContent = 'got ' + e.target.value;
});
</script>`

// The driver types into a real page and sees what the page's script did
// with it; it also sees the page's uncaught exceptions.
func TestDrivesAPage(t *testing.T) {
	exe := Need(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, page)
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Launch(ctx, exe, t.TempDir())
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Page(ctx)
	require.NoError(t, err, b.Output())
	defer p.Close()
	require.NoError(t, p.Navigate(ctx, ts.URL))
	require.NoError(t, p.WaitFor(ctx, "the page", `document.getElementById('in') !== null`, `document.body && document.body.innerHTML`))
	require.NoError(t, p.Eval(ctx, `document.getElementById('in').focus()`, nil))
	require.NoError(t, p.Type(ctx, "hello"))
	require.NoError(t, p.PressEnter(ctx))
	require.NoError(t, p.WaitFor(ctx, "the echo", `document.getElementById('out').textContent === 'got hello'`, `document.getElementById('out').textContent`))

	var n int
	require.NoError(t, p.Eval(ctx, `6 * 7`, &n))
	assert.Equal(t, 42, n)
	err = p.Eval(ctx, `nope()`, nil)
	assert.ErrorContains(t, err, "nope is not defined")

	require.NoError(t, p.Eval(ctx, `setTimeout(() => { throw new Error('boom') }, 0)`, nil))
	require.NoError(t, p.WaitFor(ctx, "nothing", `true`, `''`))
	deadline := time.Now().Add(time.Minute)
	for len(p.Exceptions()) == 0 {
		require.True(t, time.Now().Before(deadline), "the exception was not seen")
		time.Sleep(20 * time.Millisecond) // polling a condition, not timing anything
	}
	assert.Contains(t, p.Exceptions()[0], "boom")

	ctx2, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	err = p.WaitFor(ctx2, "something never true", `false`, `'still false'`)
	assert.ErrorContains(t, err, "the page shows: still false")
}
