package prim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/jsonvalue"
)

// httpConfig is what the http_client primitive requests, after templating:
// the caller has already expanded ${VAR} and {name} in every string, so
// nothing is expanded here (a second expansion would let a value returned by
// one tool inject variables into the next request).
type httpConfig struct {
	Method  string            // default GET
	URL     string            // required, http or https
	Headers map[string]string // sent as they are; Auth is applied after them
	// Body is sent as JSON for POST, PUT and PATCH (with Content-Type:
	// application/json unless Headers sets one), and ignored for the other
	// methods. A string is sent as a JSON string, not as raw text: the
	// primitive speaks JSON, and a templated "{params}" arrives as a map.
	Body    any
	Timeout time.Duration // per attempt, body included; default 30 s
	Retry   httpRetry
	Auth    httpAuth
}

// httpRetry says how often a failed request is tried again, and how long to
// wait in between.
type httpRetry struct {
	MaxAttempts int    // default 1 (no retry)
	Backoff     string // "exponential" (default: 0.5, 1, 2, 4 s...) or "linear" (0.5, 1, 1.5 s...)
}

// httpAuth adds an authentication header.
type httpAuth struct {
	Type   string // "" (none), "bearer" or "api_key"
	Token  string // bearer: Authorization: Bearer <Token>
	Key    string // api_key: <Header>: <Key>
	Header string // api_key header, default X-API-Key
}

// httpResult is the final response.
type httpResult struct {
	Success    bool // 2xx
	StatusCode int
	// Body is the decoded JSON when the whole body parses as JSON (numbers
	// as int64 when written as integers that fit, else float64), else the
	// text.
	Body     any
	Headers  map[string]string // canonical names, several values joined with ", "
	Attempts int
	Duration time.Duration // all attempts and waits
}

// defaultHTTPTimeout is the per-attempt timeout when none is configured.
const defaultHTTPTimeout = 30 * time.Second

// httpMethods are the methods the primitive accepts; anything else is more
// likely a typo than an exotic verb.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// Tunables, variables so that tests can replace them.
var (
	// httpBackoffBase is the first wait between attempts.
	httpBackoffBase = 500 * time.Millisecond
	// httpMaxBackoff caps one wait, so that a large max_attempts with
	// exponential backoff cannot sleep for hours.
	httpMaxBackoff = 5 * time.Minute
	// httpBodyCap is how much of a response body is read.
	httpBodyCap = maxCapture
	// httpSleep waits d, returning early with ctx's error when ctx is done,
	// so that Ctrl-C is not held up by a backoff.
	httpSleep = func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// defaultHTTPClient is used when RunHTTP is given none. It has no
	// timeout of its own: each attempt gets a context deadline instead.
	defaultHTTPClient = &http.Client{}
)

// RunHTTP makes the request, retrying on failures that may be transient: a
// network error (an attempt that timed out included), 429 Too Many Requests
// and 5xx, up to Retry.MaxAttempts attempts in all, waiting between them as
// Retry.Backoff says (each wait at most 5 minutes). Any other status is
// final at once: a 404 will not get better. client nil means a default
// client (redirects followed, which drops Authorization on a change of host).
//
// A response, whatever its status, is a result with a nil error: a non-2xx
// status is the tool failing, reported by Success false. The error is for
// no response at all: an invalid config (before any request), no answer
// after the last attempt, ctx cancelled (the error wraps ctx.Err()), or a
// response body over 16 MiB. That last one is an error rather than a
// silently truncated body, because a cut JSON document would come back as
// a string that looks like data; the result is returned with it anyway
// (status, headers, the first 16 MiB as text) for the caller to show.
// When there is an error without a response, the result still says how many
// attempts were made and how long they took.
//
// Error messages name the URL without its query and user info, which often
// hold credentials.
func RunHTTP(ctx context.Context, c httpConfig, client *http.Client) (*httpResult, error) {
	start := time.Now()
	req, err := prepareHTTP(c)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = defaultHTTPClient
	}
	client = req.guard(client)
	res := &httpResult{}
	for {
		res.Attempts++
		r, retry, err := req.attempt(ctx, client)
		if ctx.Err() != nil {
			return &httpResult{Attempts: res.Attempts, Duration: time.Since(start)},
				fmt.Errorf("http_client: %s %s: interrupted: %w", req.method, req.where, ctx.Err())
		}
		if r == nil {
			r = &httpResult{} // no response: do not keep an earlier one
		}
		r.Attempts = res.Attempts
		res = r
		if !retry || res.Attempts >= req.attempts {
			res.Duration = time.Since(start)
			if err != nil && res.Attempts > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, res.Attempts)
			}
			return res, err
		}
		if err := httpSleep(ctx, req.backoff(res.Attempts)); err != nil {
			return &httpResult{Attempts: res.Attempts, Duration: time.Since(start)},
				fmt.Errorf("http_client: %s %s: interrupted: %w", req.method, req.where, err)
		}
	}
}

// httpSafeHeaders are the configured headers a redirect to another host
// keeps; every other one (the auth header, tokens in custom headers) is
// dropped, because the config meant them for the host it named.
var httpSafeHeaders = []string{"Accept", "Accept-Language", "Content-Type", "User-Agent"}

// guard returns a copy of client whose redirects never carry the
// request's credentials to another host and never go from https to plain
// http (Go itself drops Authorization and cookies on a change of host, but
// not a custom header such as X-API-Key).
func (r *httpRequest) guard(client *http.Client) *http.Client {
	c := *client
	next := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		first := via[0].URL
		if first.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("refusing a redirect from https to %s", httpRedactURL(req.URL))
		}
		if !strings.EqualFold(req.URL.Host, first.Host) {
			for k := range r.header {
				if !slices.Contains(httpSafeHeaders, k) {
					req.Header.Del(k)
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &c
}

// httpRequest is a validated httpConfig, ready for attempts.
type httpRequest struct {
	method   string
	url      string
	where    string // url without query and user info, for messages
	header   http.Header
	host     string // a Host header goes to Request.Host
	body     []byte // nil: none
	timeout  time.Duration
	attempts int
	linear   bool
}

func prepareHTTP(c httpConfig) (*httpRequest, error) {
	r := &httpRequest{
		method:   strings.ToUpper(strings.TrimSpace(c.Method)),
		header:   http.Header{},
		timeout:  c.Timeout,
		attempts: max(c.Retry.MaxAttempts, 1),
	}
	if r.method == "" {
		r.method = http.MethodGet
	}
	if !slices.Contains(httpMethods, r.method) {
		return nil, fmt.Errorf("http_client config: method %q is not one of %s", c.Method, strings.Join(httpMethods, ", "))
	}
	u, err := checkHTTPURL(c.URL)
	if err != nil {
		return nil, err
	}
	r.url, r.where = c.URL, httpRedactURL(u)
	if r.timeout <= 0 {
		r.timeout = defaultHTTPTimeout
	}
	switch c.Retry.Backoff {
	case "", "exponential":
	case "linear":
		r.linear = true
	default:
		return nil, fmt.Errorf("http_client config: retry.backoff %q is not one of exponential, linear", c.Retry.Backoff)
	}
	for k, v := range c.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("http_client config: header %q is not a valid header name and value", k)
		}
		if http.CanonicalHeaderKey(k) == "Host" {
			r.host = v
			continue
		}
		r.header.Set(k, v)
	}
	switch c.Auth.Type {
	case "":
	case "bearer":
		if c.Auth.Token == "" {
			return nil, errors.New("http_client config: auth.token is empty (bearer auth needs a token; is its variable set?)")
		}
		r.header.Set("Authorization", "Bearer "+c.Auth.Token)
	case "api_key":
		if c.Auth.Key == "" {
			return nil, errors.New("http_client config: auth.key is empty (api_key auth needs a key; is its variable set?)")
		}
		h := c.Auth.Header
		if h == "" {
			h = "X-API-Key"
		}
		r.header.Set(h, c.Auth.Key)
	default:
		return nil, fmt.Errorf("http_client config: auth.type %q is not one of bearer, api_key", c.Auth.Type)
	}
	if c.Body != nil && (r.method == http.MethodPost || r.method == http.MethodPut || r.method == http.MethodPatch) {
		b, err := jsonvalue.Marshal(c.Body)
		if err != nil {
			return nil, fmt.Errorf("http_client config: body cannot be sent as JSON: %v", err)
		}
		r.body = b
		if r.header.Get("Content-Type") == "" {
			r.header.Set("Content-Type", "application/json")
		}
	}
	return r, nil
}

// checkHTTPURL parses an http or https URL with a host.
func checkHTTPURL(s string) (*url.URL, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("http_client config: url is required")
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("http_client config: url is not a valid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("http_client config: url %s must start with http:// or https://", httpRedactURL(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("http_client config: url %s has no host", httpRedactURL(u))
	}
	return u, nil
}

// httpRedactURL is u without user info, query and fragment.
func httpRedactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// backoff is the wait after n failed attempts: base·2^(n-1) or base·n.
func (r *httpRequest) backoff(n int) time.Duration {
	var d time.Duration
	if r.linear {
		if time.Duration(n) > httpMaxBackoff/httpBackoffBase {
			return httpMaxBackoff
		}
		d = httpBackoffBase * time.Duration(n)
	} else {
		if n > 62 || httpBackoffBase > httpMaxBackoff>>(n-1) {
			return httpMaxBackoff
		}
		d = httpBackoffBase << (n - 1)
	}
	return min(d, httpMaxBackoff)
}

// attempt makes one request. It returns the result when there was a
// response, whether to try again, and an error when there was no usable
// response.
func (r *httpRequest) attempt(ctx context.Context, client *http.Client) (*httpResult, bool, error) {
	actx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(actx, r.method, r.url, body)
	if err != nil {
		return nil, false, fmt.Errorf("http_client: %s %s: %v", r.method, r.where, err)
	}
	req.Header = r.header.Clone()
	if r.host != "" {
		req.Host = r.host
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, true, r.netError(actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(httpBodyCap)+1))
	if err != nil {
		return nil, true, r.netError(actx, err)
	}
	res := &httpResult{
		StatusCode: resp.StatusCode,
		Success:    resp.StatusCode >= 200 && resp.StatusCode <= 299,
		Headers:    make(map[string]string, len(resp.Header)),
	}
	for k, vs := range resp.Header {
		res.Headers[http.CanonicalHeaderKey(k)] = strings.Join(vs, ", ")
	}
	if len(data) > httpBodyCap {
		res.Body = string(data[:httpBodyCap])
		return res, false, fmt.Errorf("http_client: %s %s: the response body is larger than %d MiB", r.method, r.where, httpBodyCap>>20)
	}
	res.Body = decodeHTTPBody(data)
	retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
	return res, retry, nil
}

// netError describes an attempt that got no (complete) response.
func (r *httpRequest) netError(actx context.Context, err error) error {
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("http_client: %s %s: no response within the %s timeout", r.method, r.where, r.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the full URL, query included
	}
	return fmt.Errorf("http_client: %s %s: %w", r.method, r.where, err)
}

// decodeHTTPBody is the JSON value when all of data is one JSON value
// (jsonvalue.Decode: integers exact, so that an id like 9007199254740993 is not
// rounded), else the text.
func decodeHTTPBody(data []byte) any {
	if v, err := jsonvalue.Decode(data); err == nil {
		return v
	}
	return string(data)
}

// HTTPConfigFrom decodes the rendered config of the http_client primitive
// and checks it as RunHTTP will:
// method, url, headers (map of scalars), body (any value), timeout (seconds,
// per attempt), retry {max_attempts, backoff} and auth {type, token, key,
// header}, in the plain values of a rendered config. Mistakes are reported
// here, naming the key, rather than at request time. Other keys are
// ignored (the merged config also carries keys meant for templates).
func HTTPConfigFrom(cfg map[string]any) (httpConfig, error) {
	var c httpConfig
	var err error
	if c.Method, err = httpOptString(cfg, "method", "an HTTP method"); err != nil {
		return c, err
	}
	c.Method = strings.ToUpper(c.Method)
	if c.Method == "" {
		c.Method = http.MethodGet
	}

	if c.URL, err = httpOptString(cfg, "url", "a URL"); err != nil {
		return c, err
	}

	switch v := cfg["headers"].(type) {
	case nil:
	case map[string]string:
		c.Headers = make(map[string]string, len(v))
		for k, s := range v {
			c.Headers[k] = s
		}
	case map[string]any:
		c.Headers = make(map[string]string, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !jsonvalue.IsScalar(v[k]) {
				return c, fmt.Errorf("http_client config: headers.%s must be a string, number or boolean, not %s", k, jsonvalue.Describe(v[k]))
			}
			c.Headers[k] = jsonvalue.Text(v[k])
		}
	default:
		return c, fmt.Errorf("http_client config: headers must be a map of names to values, not %s", jsonvalue.Describe(v))
	}

	c.Body = cfg["body"]

	c.Timeout = defaultHTTPTimeout
	if v, ok := cfg["timeout"]; ok && v != nil {
		if c.Timeout, err = primSeconds(v); err != nil {
			return c, fmt.Errorf("http_client config: timeout %s", err)
		}
	}

	c.Retry.MaxAttempts = 1
	c.Retry.Backoff = "exponential"
	switch v := cfg["retry"].(type) {
	case nil:
	case map[string]any:
		if n, ok := v["max_attempts"]; ok && n != nil {
			i, ok := primWholeNumber(n)
			if !ok || i < 1 || i > 100 {
				return c, fmt.Errorf("http_client config: retry.max_attempts must be a whole number from 1 to 100, not %s", jsonvalue.Text(n))
			}
			c.Retry.MaxAttempts = int(i)
		}
		b, err := httpOptString(v, "backoff", "exponential or linear")
		if err != nil {
			return c, fmt.Errorf("http_client config: retry.%s", strings.TrimPrefix(err.Error(), "http_client config: "))
		}
		if b != "" {
			c.Retry.Backoff = b
		}
	default:
		return c, fmt.Errorf("http_client config: retry must be a map with max_attempts and backoff, not %s", jsonvalue.Describe(v))
	}

	switch v := cfg["auth"].(type) {
	case nil:
	case map[string]any:
		for _, f := range []struct {
			key string
			dst *string
		}{{"type", &c.Auth.Type}, {"token", &c.Auth.Token}, {"key", &c.Auth.Key}, {"header", &c.Auth.Header}} {
			s, err := httpOptString(v, f.key, "a string")
			if err != nil {
				return c, fmt.Errorf("http_client config: auth.%s", strings.TrimPrefix(err.Error(), "http_client config: "))
			}
			*f.dst = s
		}
		if c.Auth.Type == "" {
			return c, errors.New("http_client config: auth.type is required when auth is given (one of bearer, api_key)")
		}
	default:
		return c, fmt.Errorf("http_client config: auth must be a map with type, token, key and header, not %s", jsonvalue.Describe(v))
	}
	// The rules (method, URL, backoff, auth) are RunHTTP's own checks, run
	// now so that a mistake is reported before anything starts.
	_, err = prepareHTTP(c)
	return c, err
}

// httpOptString is the string at key, "" when absent.
func httpOptString(m map[string]any, key, what string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("http_client config: %s must be %s, not %s", key, what, jsonvalue.Describe(v))
	}
}

// primWholeNumber accepts int64, int and integral float64 (YAML and JSON may
// give 3.0 for 3).
func primWholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}
