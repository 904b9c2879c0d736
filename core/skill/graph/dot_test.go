package graph_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
)

var update_ = flag.Bool("update", false, "rewrite golden files")

// dotGraph has an initial node, a regular node, a subgraph with a nested
// subgraph, names that need quoting, and two exits.
func dotGraph(t *testing.T) *graph.Graph {
	t.Helper()
	inner := graph.New("confirm", "Yes", "No")
	require.NoError(t, inner.AddNode(question("Confirm", "Sure?"), graph.ToExit("Success", "Yes"), graph.ToExit("NoMatch", "No")))
	require.NoError(t, inner.Finalize())

	ask := graph.New("ask duration", "Got", "Gave up")
	q := question("AskDuration", "For how long?")
	retry := question(`Say "again"`, "Sorry?")
	require.NoError(t, ask.AddNode(q, graph.ToExit("Success", "Got"), graph.To("NoMatch", retry)))
	require.NoError(t, ask.AddNode(retry, graph.ToExit("Success", "Got"), graph.ToExit("NoMatch", "Gave up")))
	require.NoError(t, ask.AddSubGraph(inner, graph.To("Yes", q), graph.ToExit("No", "Gave up")))
	require.NoError(t, ask.SetInitial(inner.Initial()))
	require.NoError(t, ask.Finalize())

	g := graph.New("timer", "Success", "Cancelled")
	start := graph.TrueFalse("HasDuration", nil)
	set := say("SetTimer", "Done.")
	require.NoError(t, g.AddNode(start, graph.To("True", set), graph.To("False", ask.Initial())))
	require.NoError(t, g.AddSubGraph(ask, graph.To("Got", set), graph.ToExit("Gave up", "Cancelled")))
	require.NoError(t, g.AddNode(set, graph.ToExit("Done", "Success")))
	require.NoError(t, g.Finalize())
	return g
}

// DOT output is deterministic: the same construction gives the same text,
// checked against a golden file (go test -update rewrites it).
func TestWriteDOTGolden(t *testing.T) {
	var first, second bytes.Buffer
	require.NoError(t, graph.WriteDOT(&first, dotGraph(t)))
	require.NoError(t, graph.WriteDOT(&second, dotGraph(t)))
	assert.Equal(t, first.String(), second.String())

	golden := filepath.Join("testdata", "timer.dot")
	if *update_ {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, first.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), first.String())
}

func TestWriteDOTNeedsAFinalizedGraph(t *testing.T) {
	var b bytes.Buffer
	assert.ErrorIs(t, graph.WriteDOT(&b, graph.New("g", "Success")), graph.ErrNotFinalized)
	assert.ErrorIs(t, graph.WriteDOT(&b, nil), graph.ErrNotFinalized)
	assert.Zero(t, b.Len())
}

func TestRenderPNGWithoutGraphviz(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := graph.RenderPNG(context.Background(), []byte("digraph g {}"), filepath.Join(t.TempDir(), "g.png"))
	require.ErrorIs(t, err, graph.ErrNoGraphviz)
	assert.Contains(t, err.Error(), "install the graphviz package")
}

func TestRenderPNG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("graphviz is not installed")
	}
	var dot bytes.Buffer
	require.NoError(t, graph.WriteDOT(&dot, dotGraph(t)))
	path := filepath.Join(t.TempDir(), "timer.png")
	require.NoError(t, graph.RenderPNG(context.Background(), dot.Bytes(), path))
	png, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG file")

	err = graph.RenderPNG(context.Background(), []byte("digraph {"), filepath.Join(t.TempDir(), "bad.png"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "syntax error", "Graphviz's complaint is passed on")
}
