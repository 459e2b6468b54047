package prim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hcFakeSleep replaces httpSleep for the test: it records the waits and
// returns at once (still honouring ctx).
func hcFakeSleep(t *testing.T) *[]time.Duration {
	t.Helper()
	var mu sync.Mutex
	waits := &[]time.Duration{}
	old := httpSleep
	httpSleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	t.Cleanup(func() { httpSleep = old })
	return waits
}

// hcRecord is what a test server saw.
type hcRecord struct {
	method string
	header http.Header
	body   string
}

// hcServer answers with handler and records every request.
func hcServer(t *testing.T, handler func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *[]hcRecord) {
	t.Helper()
	var mu sync.Mutex
	var recs []hcRecord
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		recs = append(recs, hcRecord{r.Method, r.Header.Clone(), string(b)})
		n := len(recs)
		mu.Unlock()
		handler(n, w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &recs
}

func TestHTTPGetJSON(t *testing.T) {
	hcFakeSleep(t)
	srv, recs := hcServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		io.WriteString(w, `{"int": 1, "float": 2.5, "exp": 1e3, "big": 9007199254740993, "list": [true, null, "x"], "nested": {"n": -4}}`)
	})
	res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL + "/path?q=1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"int": int64(1), "float": 2.5, "exp": int64(1000), // whole numbers are integers, as everywhere (decodeJSON)
		"big":  int64(9007199254740993),
		"list": []any{true, nil, "x"}, "nested": map[string]any{"n": int64(-4)},
	}
	if !reflect.DeepEqual(res.Body, want) {
		t.Errorf("body %#v\nwant %#v", res.Body, want)
	}
	if !res.Success || res.StatusCode != 200 || res.Attempts != 1 || res.Duration <= 0 {
		t.Errorf("result %+v", res)
	}
	if res.Headers["X-Multi"] != "a, b" || res.Headers["Content-Type"] != "application/json" {
		t.Errorf("headers %q", res.Headers)
	}
	if len(*recs) != 1 || (*recs)[0].method != "GET" || (*recs)[0].body != "" {
		t.Errorf("requests %+v", *recs)
	}
}

func TestHTTPTextBodies(t *testing.T) {
	for _, body := range []string{"hello", "{not json", `{"a": 1} trailing`, "1 2", "", "  "} {
		srv, _ := hcServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) })
		res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL}, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		if res.Body != body {
			t.Errorf("body %q came back as %#v, want the text", body, res.Body)
		}
	}
	// A bare JSON scalar is JSON.
	srv, _ := hcServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, " 42\n") })
	res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL}, nil)
	if err != nil || res.Body != int64(42) {
		t.Errorf("body 42: %v, %#v", err, res.Body)
	}
}

func TestHTTPPostJSONBody(t *testing.T) {
	srv, recs := hcServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	body := map[string]any{"name": "a<b>", "n": int64(3), "tags": []any{"x"}}
	for _, method := range []string{"POST", "put", "PATCH"} {
		res, err := RunHTTP(context.Background(), httpConfig{Method: method, URL: srv.URL, Body: body}, nil)
		if err != nil || !res.Success || res.StatusCode != 201 {
			t.Fatalf("%s: %v, %+v", method, err, res)
		}
	}
	for i, rec := range *recs {
		var got map[string]any
		if err := json.Unmarshal([]byte(rec.body), &got); err != nil {
			t.Fatalf("request %d body %q: %v", i, rec.body, err)
		}
		if !reflect.DeepEqual(got, map[string]any{"name": "a<b>", "n": 3.0, "tags": []any{"x"}}) || !strings.Contains(rec.body, "a<b>") {
			t.Errorf("request %d body %q", i, rec.body)
		}
		if ct := rec.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d content type %q", i, ct)
		}
	}
	if got := []string{(*recs)[0].method, (*recs)[1].method, (*recs)[2].method}; !reflect.DeepEqual(got, []string{"POST", "PUT", "PATCH"}) {
		t.Errorf("methods %q", got)
	}

	// A Content-Type of the config is kept; a GET sends no body.
	*recs = nil
	if _, err := RunHTTP(context.Background(), httpConfig{Method: "POST", URL: srv.URL, Body: []any{int64(1)}, Headers: map[string]string{"content-type": "application/vnd.x+json"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := RunHTTP(context.Background(), httpConfig{Method: "GET", URL: srv.URL, Body: body}, nil); err != nil {
		t.Fatal(err)
	}
	if ct := (*recs)[0].header.Get("Content-Type"); ct != "application/vnd.x+json" || (*recs)[0].body != "[1]" {
		t.Errorf("custom content type: %q, body %q", ct, (*recs)[0].body)
	}
	if (*recs)[1].body != "" || (*recs)[1].header.Get("Content-Type") != "" {
		t.Errorf("GET sent a body %q", (*recs)[1].body)
	}
}

func TestHTTPHeadersAndAuth(t *testing.T) {
	srv, recs := hcServer(t, func(int, http.ResponseWriter, *http.Request) {})
	cases := []struct {
		auth httpAuth
		want map[string]string
	}{
		{httpAuth{}, map[string]string{"X-Custom": "v 1", "Authorization": "", "X-Api-Key": ""}},
		{httpAuth{Type: "bearer", Token: "tok"}, map[string]string{"X-Custom": "v 1", "Authorization": "Bearer tok"}},
		{httpAuth{Type: "api_key", Key: "k1"}, map[string]string{"X-Custom": "v 1", "X-Api-Key": "k1", "Authorization": ""}},
		{httpAuth{Type: "api_key", Key: "k2", Header: "X-Token"}, map[string]string{"X-Token": "k2", "X-Api-Key": ""}},
	}
	for i, c := range cases {
		if _, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL, Headers: map[string]string{"x-custom": "v 1"}, Auth: c.auth}, nil); err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if got := (*recs)[i].header.Get(k); got != v {
				t.Errorf("auth %+v: header %s = %q, want %q", c.auth, k, got, v)
			}
		}
	}
}

func TestHTTPRetries(t *testing.T) {
	cases := []struct {
		name        string
		backoff     string
		attempts    int
		failures    int // answers of status before a 200
		status      int
		wantWaits   []time.Duration
		wantStatus  int
		wantAttempt int
	}{
		{"exponential until success", "", 5, 3, 503, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, 200, 4},
		{"exponential exhausted", "exponential", 5, 99, 500, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}, 500, 5},
		{"linear exhausted", "linear", 4, 99, 429, []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond}, 429, 4},
		{"no retry by default", "", 0, 99, 503, nil, 503, 1},
		{"no retry on 404", "linear", 5, 99, 404, nil, 404, 1},
		{"no retry on 400", "", 5, 99, 400, nil, 400, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waits := hcFakeSleep(t)
			srv, recs := hcServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n <= c.failures {
					w.WriteHeader(c.status)
					io.WriteString(w, `{"error": "busy"}`)
					return
				}
				io.WriteString(w, `{"ok": true}`)
			})
			res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL, Retry: httpRetry{MaxAttempts: c.attempts, Backoff: c.backoff}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != c.wantStatus || res.Attempts != c.wantAttempt || len(*recs) != c.wantAttempt || res.Success != (c.wantStatus == 200) {
				t.Errorf("got status %d after %d attempts (%d requests), success %v", res.StatusCode, res.Attempts, len(*recs), res.Success)
			}
			if !reflect.DeepEqual(*waits, c.wantWaits) && (len(*waits) > 0 || len(c.wantWaits) > 0) {
				t.Errorf("waits %v, want %v", *waits, c.wantWaits)
			}
			wantBody := any(map[string]any{"ok": true})
			if c.wantStatus != 200 {
				wantBody = map[string]any{"error": "busy"}
			}
			if !reflect.DeepEqual(res.Body, wantBody) {
				t.Errorf("body %#v, want the last response's", res.Body)
			}
		})
	}
}

func TestHTTPBackoffIsCapped(t *testing.T) {
	r := &httpRequest{}
	if d := r.backoff(40); d != httpMaxBackoff {
		t.Errorf("exponential wait 40: %v", d)
	}
	r.linear = true
	if d := r.backoff(1 << 30); d != httpMaxBackoff {
		t.Errorf("linear wait 2^30: %v", d)
	}
}

func TestHTTPNetworkErrorsAreRetried(t *testing.T) {
	waits := hcFakeSleep(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/p?token=secret-value"
	srv.Close() // connection refused from now on
	res, err := RunHTTP(context.Background(), httpConfig{URL: url, Retry: httpRetry{MaxAttempts: 3}}, nil)
	if err == nil {
		t.Fatal("no error for a refused connection")
	}
	if res == nil || res.Attempts != 3 || res.StatusCode != 0 || len(*waits) != 2 {
		t.Errorf("result %+v, waits %v", res, *waits)
	}
	if msg := err.Error(); strings.Contains(msg, "secret-value") || !strings.Contains(msg, "/p") || !strings.Contains(msg, "after 3 attempts") {
		t.Errorf("error %q: want the URL without its query, and the attempts", msg)
	}
}

func TestHTTPTimeoutPerAttempt(t *testing.T) {
	waits := hcFakeSleep(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer srv.Close()
	start := time.Now()
	res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL, Timeout: 200 * time.Millisecond, Retry: httpRetry{MaxAttempts: 2}}, nil)
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if err == nil || !strings.Contains(err.Error(), "no response within the 200ms timeout") {
		t.Errorf("error %v", err)
	}
	if res == nil || res.Attempts != 2 || calls.Load() != 2 || len(*waits) != 1 {
		t.Errorf("result %+v, %d calls, waits %v", res, calls.Load(), *waits)
	}
}

func TestHTTPCancelDuringARequest(t *testing.T) {
	hcFakeSleep(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer srv.Close()
	start := time.Now()
	res, err := RunHTTP(ctx, httpConfig{URL: srv.URL, Retry: httpRetry{MaxAttempts: 5}}, nil)
	if !errors.Is(err, context.Canceled) || res == nil || res.Attempts != 1 {
		t.Errorf("got %v, %+v; want context.Canceled after 1 attempt", err, res)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func TestHTTPCancelDuringABackoff(t *testing.T) {
	// The real sleep, for a wait of an hour, cancelled as it starts: it
	// must return at once.
	realSleep := httpSleep
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	httpSleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return realSleep(ctx, time.Hour)
	}
	t.Cleanup(func() { httpSleep = realSleep })
	srv, recs := hcServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
	start := time.Now()
	res, err := RunHTTP(ctx, httpConfig{URL: srv.URL, Retry: httpRetry{MaxAttempts: 5}}, nil)
	if !errors.Is(err, context.Canceled) || res == nil || res.Attempts != 1 || len(*recs) != 1 {
		t.Errorf("got %v, %+v, %d requests; want context.Canceled after 1 attempt", err, res, len(*recs))
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func TestHTTPBodyCap(t *testing.T) {
	waits := hcFakeSleep(t)
	old := httpBodyCap
	httpBodyCap = 10
	t.Cleanup(func() { httpBodyCap = old })
	srv, recs := hcServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			io.WriteString(w, strings.Repeat("x", 100))
		} else {
			io.WriteString(w, "0123456789") // exactly the cap
		}
	})
	res, err := RunHTTP(context.Background(), httpConfig{URL: srv.URL, Retry: httpRetry{MaxAttempts: 3}}, nil)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("error %v, want one about the size", err)
	}
	if res == nil || res.Body != strings.Repeat("x", 10) || res.StatusCode != 200 || res.Attempts != 1 || len(*recs) != 1 || len(*waits) != 0 {
		t.Errorf("result %+v, %d requests: want the cut body and no retry", res, len(*recs))
	}
	res, err = RunHTTP(context.Background(), httpConfig{URL: srv.URL}, nil)
	if err != nil || res.Body != "0123456789" { // not JSON: a leading zero
		t.Errorf("exactly the cap: %v, %#v", err, res.Body)
	}
}

func TestHTTPInvalidConfigMakesNoRequest(t *testing.T) {
	srv, recs := hcServer(t, func(int, http.ResponseWriter, *http.Request) {})
	for _, c := range []struct {
		cfg  httpConfig
		want string
	}{
		{httpConfig{}, "url is required"},
		{httpConfig{URL: "ftp://host/x"}, "must start with http:// or https://"},
		{httpConfig{URL: "http://"}, "has no host"},
		{httpConfig{URL: "http://a b.com/%zz"}, "not a valid URL"},
		{httpConfig{URL: srv.URL, Method: "FETCH"}, `method "FETCH" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`},
		{httpConfig{URL: srv.URL, Auth: httpAuth{Type: "basic"}}, `auth.type "basic" is not one of bearer, api_key`},
		{httpConfig{URL: srv.URL, Auth: httpAuth{Type: "bearer"}}, "auth.token is empty"},
		{httpConfig{URL: srv.URL, Auth: httpAuth{Type: "api_key"}}, "auth.key is empty"},
		{httpConfig{URL: srv.URL, Retry: httpRetry{Backoff: "fibonacci"}}, `retry.backoff "fibonacci" is not one of exponential, linear`},
		{httpConfig{URL: srv.URL, Method: "POST", Body: func() {}}, "body cannot be sent as JSON"},
		{httpConfig{URL: srv.URL, Headers: map[string]string{"X-A": "a\r\nInjected: 1"}}, "not a valid header"},
	} {
		res, err := RunHTTP(context.Background(), c.cfg, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
			t.Errorf("%+v: got %v, %+v; want an error with %q", c.cfg, err, res, c.want)
		}
	}
	if len(*recs) != 0 {
		t.Errorf("%d requests made", len(*recs))
	}
}

func TestHTTPConfigFrom(t *testing.T) {
	cases := []struct {
		name    string
		cfg     map[string]any
		want    httpConfig
		wantErr string
	}{
		{
			name: "defaults",
			cfg:  map[string]any{"url": "https://api.example.com/x", "template_only": "ignored"},
			want: httpConfig{Method: "GET", URL: "https://api.example.com/x", Timeout: 30 * time.Second, Retry: httpRetry{MaxAttempts: 1, Backoff: "exponential"}},
		},
		{
			name: "everything",
			cfg: map[string]any{
				"method": "post", "url": "http://h/p", "headers": map[string]any{"X-N": int64(2), "X-S": "s", "X-B": true},
				"body": map[string]any{"a": []any{int64(1)}}, "timeout": 2.5,
				"retry": map[string]any{"max_attempts": int64(4), "backoff": "linear"},
				"auth":  map[string]any{"type": "api_key", "key": "k", "header": "X-Key"},
			},
			want: httpConfig{
				Method: "POST", URL: "http://h/p", Headers: map[string]string{"X-N": "2", "X-S": "s", "X-B": "true"},
				Body: map[string]any{"a": []any{int64(1)}}, Timeout: 2500 * time.Millisecond,
				Retry: httpRetry{MaxAttempts: 4, Backoff: "linear"},
				Auth:  httpAuth{Type: "api_key", Key: "k", Header: "X-Key"},
			},
		},
		{
			name: "bearer, integral float attempts, Go-typed headers",
			cfg: map[string]any{
				"url": "http://h", "headers": map[string]string{"A": "b"}, "timeout": int64(1),
				"retry": map[string]any{"max_attempts": 3.0}, "auth": map[string]any{"type": "bearer", "token": "t"},
			},
			want: httpConfig{
				Method: "GET", URL: "http://h", Headers: map[string]string{"A": "b"}, Timeout: time.Second,
				Retry: httpRetry{MaxAttempts: 3, Backoff: "exponential"}, Auth: httpAuth{Type: "bearer", Token: "t"},
			},
		},
		{name: "no url", cfg: map[string]any{"method": "GET"}, wantErr: "url is required"},
		{name: "url not a string", cfg: map[string]any{"url": []any{"http://h"}}, wantErr: "url must be a URL, not a list"},
		{name: "url scheme", cfg: map[string]any{"url": "file:///etc/passwd"}, wantErr: "must start with http:// or https://"},
		{name: "method", cfg: map[string]any{"url": "http://h", "method": "GRAB"}, wantErr: `method "GRAB" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`},
		{name: "method type", cfg: map[string]any{"url": "http://h", "method": true}, wantErr: "method must be an HTTP method, not a boolean"},
		{name: "headers list", cfg: map[string]any{"url": "http://h", "headers": []any{"A: b"}}, wantErr: "headers must be a map"},
		{name: "header value", cfg: map[string]any{"url": "http://h", "headers": map[string]any{"A": []any{"b"}}}, wantErr: "headers.A must be a string, number or boolean"},
		{name: "timeout", cfg: map[string]any{"url": "http://h", "timeout": "10s"}, wantErr: "timeout must be a number of seconds"},
		{name: "timeout zero", cfg: map[string]any{"url": "http://h", "timeout": 0.0}, wantErr: "timeout must be a positive number"},
		{name: "retry list", cfg: map[string]any{"url": "http://h", "retry": []any{int64(3)}}, wantErr: "retry must be a map"},
		{name: "attempts zero", cfg: map[string]any{"url": "http://h", "retry": map[string]any{"max_attempts": int64(0)}}, wantErr: "retry.max_attempts must be a whole number from 1 to 100, not 0"},
		{name: "attempts fraction", cfg: map[string]any{"url": "http://h", "retry": map[string]any{"max_attempts": 2.5}}, wantErr: "retry.max_attempts must be a whole number"},
		{name: "attempts string", cfg: map[string]any{"url": "http://h", "retry": map[string]any{"max_attempts": "3"}}, wantErr: "retry.max_attempts must be a whole number"},
		{name: "backoff", cfg: map[string]any{"url": "http://h", "retry": map[string]any{"backoff": "fibonacci"}}, wantErr: `retry.backoff "fibonacci" is not one of exponential, linear`},
		{name: "backoff type", cfg: map[string]any{"url": "http://h", "retry": map[string]any{"backoff": int64(2)}}, wantErr: "retry.backoff must be exponential or linear, not a number"},
		{name: "auth type", cfg: map[string]any{"url": "http://h", "auth": map[string]any{"type": "basic"}}, wantErr: `auth.type "basic" is not one of bearer, api_key`},
		{name: "auth no type", cfg: map[string]any{"url": "http://h", "auth": map[string]any{"token": "t"}}, wantErr: "auth.type is required"},
		{name: "bearer no token", cfg: map[string]any{"url": "http://h", "auth": map[string]any{"type": "bearer", "token": ""}}, wantErr: "auth.token is empty (bearer auth needs a token"},
		{name: "api_key no key", cfg: map[string]any{"url": "http://h", "auth": map[string]any{"type": "api_key"}}, wantErr: "auth.key is empty (api_key auth needs a key"},
		{name: "auth token type", cfg: map[string]any{"url": "http://h", "auth": map[string]any{"type": "bearer", "token": int64(5)}}, wantErr: "auth.token must be a string, not a number"},
		{name: "auth string", cfg: map[string]any{"url": "http://h", "auth": "bearer x"}, wantErr: "auth must be a map"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := HTTPConfigFrom(c.cfg)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.HasPrefix(err.Error(), "http_client config: ") {
					t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

// A redirect to another host does not carry the credentials along, and
// https is never downgraded to http.
func TestHTTPRedirectsKeepCredentials(t *testing.T) {
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range []string{"X-Api-Key", "Authorization", "X-Token"} {
			if v := r.Header.Get(h); v != "" {
				leaked = append(leaked, h+"="+v)
			}
		}
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("Accept dropped")
		}
		w.Write([]byte(`{"ok": true}`))
	}))
	defer other.Close()
	// The same server under another host name: 127.0.0.1 -> localhost.
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+"/landed", http.StatusFound)
	}))
	defer first.Close()
	for _, auth := range []httpAuth{{Type: "api_key", Key: "SECRET"}, {Type: "bearer", Token: "SECRET"}} {
		leaked = nil
		res, err := RunHTTP(context.Background(), httpConfig{URL: first.URL, Auth: auth, Headers: map[string]string{"X-Token": "SECRET", "Accept": "application/json"}}, nil)
		if err != nil || !res.Success {
			t.Fatalf("%v %+v", err, res)
		}
		if len(leaked) > 0 {
			t.Errorf("%s: credentials sent to the other host: %v", auth.Type, leaked)
		}
	}
	tlsFirst := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL, http.StatusFound)
	}))
	defer tlsFirst.Close()
	if _, err := RunHTTP(context.Background(), httpConfig{URL: tlsFirst.URL}, tlsFirst.Client()); err == nil || !strings.Contains(err.Error(), "from https to") {
		t.Errorf("https -> http: %v", err)
	}
}
