// Package params turns a tool's JSON Schema into the ways a caller gives
// it parameters: command-line flags (typed by the schema, "-" and "_"
// alike, one positional for the primary parameter), --params JSON or
// @file, defaults, validation with messages that name the flag, and the
// usage text of rye execute tool ID --help. A tool that declares no
// schema takes any parameter, passed on unchecked as the reference passed
// it (spec 6.6); a schema that declares nothing takes none.
//
// It works on the verified schema only: the executor hands it the schema of
// the tool whose signature it has just checked, so a tool cannot change how
// its parameters are read between verification and run.
package params
