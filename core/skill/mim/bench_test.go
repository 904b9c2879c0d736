package mim

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkSlimQuestion: one question turned into a SLIM, prompt data
// built from a runtime context as a skill does every turn.
func BenchmarkSlimQuestion(b *testing.B) {
	m := loadMIM(b, "TimerHowLong")
	s, _ := testSlimmer(1)
	rt := testRuntime()
	b.ReportAllocs()
	for b.Loop() {
		d := NewPromptData(rt, testNow, nil)
		if _, err := s.Slim(m, Entry(m), d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSlimConditions: four prompts with conditions and a template.
func BenchmarkSlimConditions(b *testing.B) {
	m := loadMIM(b, "Greeting")
	s, _ := testSlimmer(1)
	d := NewPromptData(testRuntime(), testNow, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Slim(m, Entry(m), d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse: parse, validate and compile one MIM of six prompts.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/mims/TimerHowLong.mim")
	require.NoError(b, err)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, "TimerHowLong.mim"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConditions: parse a MIM whose four prompts have
// conditions and templates to compile.
func BenchmarkParseConditions(b *testing.B) {
	data, err := os.ReadFile("testdata/mims/Greeting.mim")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "Greeting.mim"); err != nil {
			b.Fatal(err)
		}
	}
}
