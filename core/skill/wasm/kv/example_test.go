package kv_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/skill/wasm/kv"
)

func Example() {
	dir, _ := os.MkdirTemp("", "kv")
	defer os.RemoveAll(dir)
	s, err := kv.Open(filepath.Join(dir, "skilldata.db"), kv.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	_ = s.Set("community/memo", "memo", []byte("the keys are under the mat"))
	v, _ := s.Get("community/memo", "memo")
	fmt.Println(string(v))
	_, err = s.Get("community/other", "memo")
	fmt.Println(errors.Is(err, kv.ErrNotFound))
	err = s.Set("community/memo", "big", make([]byte, kv.MaxValueBytes+1))
	fmt.Println(err)
	// Output:
	// the keys are under the mat
	// true
	// writing key "big" of skill community/memo: invalid: value of 32769 bytes, limit 32768
}
