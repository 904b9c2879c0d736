package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSaysClockTime(t *testing.T) {
	re := regexp.MustCompile(`\d{1,2}:\d\d [AP]M`)
	for _, s := range []string{
		"It's 9:05 AM.", "It's 12:30 PM", "9:05 AM", "it is 09:05 PM now", "9:5 AM", "9:05 am", "9:05AM",
		":05 AM", "9:05 XM", "9:05 A", "", "12:00 PMx", "1:234 AM", "99:99 PM", "९:०५ AM",
	} {
		assert.Equal(t, re.MatchString(s), saysClockTime(s), "%q", s)
	}
}
