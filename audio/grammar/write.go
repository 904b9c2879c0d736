package grammar

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// promptLine is a prompt as WritePrompts writes it in JSON.
type promptLine struct {
	Text   string `json:"text"`
	Intent string `json:"intent,omitempty"`
	Wake   bool   `json:"wake"`
}

// WritePrompts writes prompts to w one a line: the sentence, or with
// asJSON an object {"text","intent","wake"}.
func WritePrompts(w io.Writer, prompts []Prompt, asJSON bool) error {
	bw := bufio.NewWriter(w)
	for _, p := range prompts {
		if !asJSON {
			fmt.Fprintln(bw, p.Text)
			continue
		}
		b, err := json.Marshal(promptLine(p))
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
