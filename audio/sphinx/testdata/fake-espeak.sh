#!/bin/sh
# A stand-in for espeak-ng in tests. What it does is its file's name:
#   hang       never answers;
#   hang-once  never answers its first run, answers the later ones;
#   one-line   answers a batch on one line, not a line a word;
#   answer     answers.
# It notes each run as a line of "$0.runs". Its answer for a word is the
# word's letters as espeak phonemes ("bad" is b_a_d), one line a word, for
# the word after "--" or else each line of its input.
echo run >> "$0.runs"
mode=$(basename "$0")
case $mode in
hang) exec sleep 600 ;;
hang-once)
	if [ ! -e "$0.ran" ]; then
		: > "$0.ran"
		exec sleep 600
	fi ;;
esac
word=""
while [ $# -gt 0 ]; do
	if [ "$1" = "--" ]; then word=$2; fi
	shift
done
letters() { sed 's/./&_/g; s/_$//'; }
if [ -n "$word" ]; then
	echo "$word" | letters
elif [ "$mode" = one-line ]; then
	letters | tr '\n' ' '
	echo
else
	letters
fi
