// Package prim implements the executor's two primitives, the roots of every
// chain: subprocess (a program in its own process group, no shell, empty
// stdin unless given, output caps, SIGTERM then SIGKILL on timeout or
// cancellation, leftovers of the group killed) and http_client (JSON
// requests with retries, backoff and authentication, credentials never
// sent to another host).
//
// It sees only rendered, plain configuration values, never items or
// spaces, and imports nothing of rye's but internal/jsonvalue, the one way
// values are read from and written as JSON and text.
package prim
