package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// ParseFile reads and parses a scenario file; an error names the file.
func ParseFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening scenario: %w", err)
	}
	defer f.Close()
	sc, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// RunSummary runs f as Run does and writes its summary (Summarize), one
// "<step> <type>" line per message, to out instead of the trace.
func RunSummary(ctx context.Context, f *File, out io.Writer, opts Options) error {
	var trace bytes.Buffer
	runErr := Run(ctx, f, &trace, opts)
	lines, err := Summarize(&trace)
	if err != nil {
		return err
	}
	if len(lines) > 0 {
		fmt.Fprintln(out, strings.Join(lines, "\n"))
	}
	return runErr
}
