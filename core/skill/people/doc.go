// Package people keeps the people the robot knows, with its own identity:
// what Jibo calls the robot's loop (jibo.md §2.2 runtime.loop), the name
// its file, bus topic and skill requests keep. On Jibo the cloud kept the
// loop; an offline-first robot keeps it itself, in a JSON file of its
// state folder (FileName), changed with `jibod people` and read by the
// running jibod, which gives it to every skill request and puts the
// members' names in its speech grammar.
//
// The file (format version 1) is written for people to read:
//
//	{
//	  "version": 1,
//	  "loopId": "loop-…",
//	  "jibo": {"id": "jibo-…", "birthdate": "2026-05-01"},
//	  "owner": "lp-…",
//	  "members": [
//	    {"id": "lp-…", "firstName": "Ann", "lastName": "Lee", "gender": "female", "birthdate": "2001-02-03"}
//	  ]
//	}
//
// Rules, checked when the file is read and on every change: a member has
// a first name and may have a last and a phonetic name (letters, spaces,
// apostrophes, hyphens; at most MaxNameBytes each), a gender (free text)
// and a birthdate (YYYY-MM-DD, 1900 to today); ids are unique; at most
// MaxMembers members; exactly one owner when there is anyone. Skills get
// birthdates as epoch milliseconds (noon of the day in the robot's zone).
package people
