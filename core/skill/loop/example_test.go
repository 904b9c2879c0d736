package loop_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/skill/loop"
)

// A loop kept in a state folder: the first person added is the owner,
// and skills get the loop as runtime.loop.
func Example() {
	dir, _ := os.MkdirTemp("", "loop-example")
	defer os.RemoveAll(dir)
	s, err := loop.Open(filepath.Join(dir, loop.FileName), loop.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ann, _ := s.Add(loop.Member{FirstName: "Ann", LastName: "Lee"}, false)
	_, _ = s.Add(loop.Member{FirstName: "cleo", Gender: "Female"}, false)

	l := s.Loop()
	fmt.Println(len(l.Users), l.Owner == ann.ID)
	fmt.Println(l.Users[1].FirstName, l.Users[1].Gender)
	// Output:
	// 2 true
	// cleo female
}
