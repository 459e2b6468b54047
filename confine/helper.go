package confine

// HelperArg is the hidden first argument with which rye runs itself as the
// helper when rye-confine is not installed beside it: the same code, with
// rye's whole start-up in front of it.
const HelperArg = "__rye-confine"

// HelperName is the helper program's file name, looked for beside rye.
const HelperName = "rye-confine"

// The helper's descriptors: rye hands it the policy on 3 and a pipe on 4,
// on which the helper writes why it did not execute the tool (execve
// closes it: end of file with nothing written means the tool started).
// The rules' descriptors follow from 5.
const (
	policyFD = 3
	statusFD = 4
)
