package strictjson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheck compares Check with json.Valid, the check it replaces, on
// real hub frames.
func BenchmarkCheck(b *testing.B) {
	for _, name := range []string{"robot-to-hub/context.json", "hub-to-robot/skill_action.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "protocol", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/strictjson.Check", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Check(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if !json.Valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
