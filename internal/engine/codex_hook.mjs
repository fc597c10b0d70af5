// Bonsai's command policy for Codex (docs/engines.md): Codex's PreToolUse
// hook runs this with the hook's input on stdin; it asks the run's board
// server to judge the command and prints the answer, which Codex obeys
// (nothing for an allowed command, a deny with the policy's words). Any
// failure exits non-zero: the hook's shell then exits 2 with the reason on
// stderr, which Codex takes as a block. Nothing runs unjudged.
import http from "node:http";

const hook = new URL(__HOOK__);
const token = __TOKEN__;

function fail(why) {
  process.stderr.write("Bonsai's command policy could not judge the command, so it did not run: " + why + "\n");
  process.exit(1);
}

// loopback reports whether host is this machine's, reached directly.
function loopback(host) {
  return host === "localhost" || host === "[::1]" || host === "::1" || host.startsWith("127.");
}

function ask(input) {
  const headers = { "Authorization": "Bearer " + token, "Content-Type": "application/json" };
  let opts = { method: "POST", headers, host: hook.hostname, port: hook.port, path: hook.pathname };
  const proxy = process.env.HTTP_PROXY || process.env.http_proxy;
  if (proxy && !loopback(hook.hostname)) {
    // The sandbox's proxy network: the board is one of the proxy's
    // relayed names, asked in absolute form.
    const p = new URL(proxy);
    opts = { method: "POST", headers: { ...headers, Host: hook.host }, host: p.hostname, port: p.port, path: hook.href };
  }
  const req = http.request(opts, (res) => {
    let body = "";
    res.setEncoding("utf8");
    res.on("data", (c) => { body += c; });
    res.on("end", () => {
      if (res.statusCode !== 200) fail("the board server answered HTTP " + res.statusCode);
      try {
        JSON.parse(body);
      } catch (e) {
        fail("the board server's answer is not JSON");
      }
      process.stdout.write(body);
      process.exit(0);
    });
    res.on("error", (e) => fail(String(e)));
  });
  req.setTimeout(600000, () => req.destroy(new Error("no answer in 10 minutes")));
  req.on("error", (e) => fail(String(e)));
  req.end(input);
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => ask(input));
process.stdin.on("error", (e) => fail(String(e)));
