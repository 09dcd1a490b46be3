"use strict";
/*
 * cortex-tui for OpenClaw: memories recalled into each prompt, each finished turn handed
 * over for capture.
 *
 * The plugin holds no memory logic. It sends OpenClaw's events to the local cortex-tui
 * service on its Unix socket (`<home>/cortex.sock`), the same routes the Claude Code
 * hooks use, and returns what the service answers. When no service answers there, it
 * runs `cortex-tui --hook pre|post` with the event, which starts the service (and, for a
 * prompt, waits for it within the hook's own cap) or spools the turn durably itself.
 *
 * It fails open: whatever goes wrong (no cortex-tui, a stopped or hung service, a bad
 * answer), the prompt goes on without memories within `recallTimeoutMs`, the turn ends
 * within `captureTimeoutMs`, nothing is thrown at OpenClaw, and the reason is written to
 * `<home>/logs/hooks.log` and OpenClaw's log.
 *
 * Plain JavaScript on Node's standard library: nothing to build, nothing to install.
 */

const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const { spawn } = require("node:child_process");

const PLUGIN_ID = "cortex-tui";
const PRE_ROUTE = "/v1/hook/pre/raw";
const POST_ROUTE = "/v1/hook/post/raw";
const DEFAULT_RECALL_TIMEOUT_MS = 10000;
/* OpenClaw's one-shot `agent --local` gives plugins 5 s after a turn before it exits. */
const DEFAULT_CAPTURE_TIMEOUT_MS = 4000;
/* A warm service answers in tens of milliseconds; one that has not answered by then is
 * starting or busy, and the hook (which knows which) decides how long to wait. */
const SERVICE_ANSWER_MS = 1500;
const LOG_MAX_BYTES = 1000000;
const LOG_BACKUPS = 3;

class TimedOut extends Error {}

function settingsOf(pluginConfig) {
  const config = pluginConfig || {};
  const home = config.home || process.env.CORTEX_HOME || "";
  const command =
    Array.isArray(config.command) && config.command.length ? config.command : ["cortex-tui"];
  return {
    home,
    command,
    recallTimeoutMs: config.recallTimeoutMs || DEFAULT_RECALL_TIMEOUT_MS,
    captureTimeoutMs: config.captureTimeoutMs || DEFAULT_CAPTURE_TIMEOUT_MS,
  };
}

/* One request to the service; resolves {status, body}. Rejects with the socket's error
 * (ENOENT, ECONNREFUSED: nothing serves) or TimedOut (connected, no answer in time). */
function askService(home, route, body, timeoutMs) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath: path.join(home, "cortex.sock"),
        method: "POST",
        path: route,
        headers: {
          host: "cortex",
          "content-type": "application/octet-stream",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      },
    );
    const timer = setTimeout(
      () => request.destroy(new TimedOut(`no answer from the service in ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on("error", reject);
    request.on("close", () => clearTimeout(timer));
    request.end(body);
  });
}

/* `cortex-tui --hook KIND` with the event on stdin; resolves its stdout. */
function runHook(settings, kind, body, timeoutMs) {
  return new Promise((resolve, reject) => {
    const [program, ...args] = settings.command;
    const env = { ...process.env };
    if (settings.home) env.CORTEX_HOME = settings.home;
    let child;
    try {
      child = spawn(program, [...args, "--hook", kind], {
        env,
        stdio: ["pipe", "pipe", "ignore"],
        windowsHide: true,
      });
    } catch (error) {
      reject(error);
      return;
    }
    const chunks = [];
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new TimedOut(`cortex-tui --hook ${kind} gave no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stdin.on("error", () => {}); // a hook that exits before reading its event
    child.stdin.end(body);
  });
}

/* Whether a failed service call should be handed to the hook: nothing serves the
 * socket, a service too slow to answer (starting, or busy), or one started by an
 * earlier version that lacks the route (the hook restarts it). */
function handOverToHook(failure) {
  if (failure instanceof TimedOut) return true;
  if (failure && (failure.code === "ENOENT" || failure.code === "ECONNREFUSED")) return true;
  return Boolean(failure && failure.status === 404 && !String(failure.body).includes('"error"'));
}

/* The event to the service, else to the hook; the hook's output, "" for none. */
async function deliver(settings, kind, event, timeoutMs) {
  const body = JSON.stringify(event);
  const deadline = Date.now() + timeoutMs;
  if (settings.home) {
    let failure;
    try {
      const answer = await askService(
        settings.home,
        kind === "pre" ? PRE_ROUTE : POST_ROUTE,
        body,
        Math.min(SERVICE_ANSWER_MS, timeoutMs),
      );
      if (answer.status < 400) return { output: answer.body, via: "service" };
      failure = answer;
    } catch (error) {
      failure = error;
    }
    if (!handOverToHook(failure)) {
      const detail = failure.body ? `: ${failure.body.slice(0, 200)}` : "";
      throw new Error(`the service answered HTTP ${failure.status}${detail}`);
    }
  }
  const left = deadline - Date.now();
  if (left <= 0) throw new TimedOut(`no answer within ${timeoutMs} ms`);
  return { output: await runHook(settings, kind, body, left), via: "hook" };
}

/* The user's and the assistant's words of each message: tool calls, their results and
 * images are the agent's working, and a long session's history is sent on every turn. */
function conversation(messages) {
  const kept = [];
  for (const message of Array.isArray(messages) ? messages : []) {
    if (!message || (message.role !== "user" && message.role !== "assistant")) continue;
    const text = textOf(message.content);
    kept.push({ role: message.role, content: text });
  }
  return kept;
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block && block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

function contextOf(output) {
  const text = output.trim();
  if (!text) return "";
  const answer = JSON.parse(text);
  return typeof answer.prependContext === "string" ? answer.prependContext : "";
}

/* A line in cortex-tui's hook log, in its format, rotated as it rotates it; a home that
 * cannot be written loses the line, never the turn. */
function writeLog(home, level, message) {
  if (!home) return;
  try {
    const folder = path.join(home, "logs");
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, "hooks.log");
    rotateIfFull(file);
    const now = new Date();
    const pad = (n, width = 2) => String(n).padStart(width, "0");
    const stamp =
      `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ` +
      `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())},` +
      pad(now.getMilliseconds(), 3);
    fs.appendFileSync(file, `${stamp} ${level} openclaw plugin: ${message}\n`, { mode: 0o600 });
  } catch (_error) {
    // a full disk or a read-only home must not break the agent
  }
}

function rotateIfFull(file) {
  let size;
  try {
    size = fs.statSync(file).size;
  } catch (_error) {
    return;
  }
  if (size < LOG_MAX_BYTES) return;
  for (let number = LOG_BACKUPS - 1; number > 0; number -= 1) {
    if (fs.existsSync(`${file}.${number}`)) fs.renameSync(`${file}.${number}`, `${file}.${number + 1}`);
  }
  fs.renameSync(file, `${file}.1`);
}

function register(api) {
  const settings = settingsOf(api.pluginConfig);
  const logger = api.logger || {};

  function failed(what, started, error) {
    const message = `${what} failed after ${Date.now() - started} ms: ${error && error.message ? error.message : error}`;
    writeLog(settings.home, "WARNING", message);
    if (typeof logger.warn === "function") logger.warn(`[${PLUGIN_ID}] ${message}`);
  }

  api.on(
    "before_prompt_build",
    async (event, ctx) => {
      const started = Date.now();
      try {
        const prompt = event && typeof event.prompt === "string" ? event.prompt : "";
        const request = {
          type: "before_prompt_build",
          prompt,
          sessionId: (ctx && ctx.sessionId) || "",
          cwd: (ctx && ctx.workspaceDir) || process.cwd(),
        };
        const answer = await deliver(settings, "pre", request, settings.recallTimeoutMs);
        const context = contextOf(answer.output);
        writeLog(
          settings.home,
          "INFO",
          `pre (${answer.via}) done in ${Date.now() - started} ms (${context.length} chars out)`,
        );
        return context ? { prependContext: context } : undefined;
      } catch (error) {
        failed("pre", started, error);
        return undefined;
      }
    },
    { timeoutMs: settings.recallTimeoutMs + 1000 },
  );

  api.on(
    "agent_end",
    async (event, ctx) => {
      const started = Date.now();
      try {
        const request = {
          type: "agent_end",
          success: Boolean(event && event.success),
          sessionId: (ctx && ctx.sessionId) || "",
          cwd: (ctx && ctx.workspaceDir) || process.cwd(),
          messages: conversation(event && event.messages),
        };
        const answer = await deliver(settings, "post", request, settings.captureTimeoutMs);
        writeLog(settings.home, "INFO", `post (${answer.via}) done in ${Date.now() - started} ms`);
      } catch (error) {
        failed("post", started, error);
      }
    },
    { timeoutMs: settings.captureTimeoutMs + 1000 },
  );
}

module.exports = { id: PLUGIN_ID, name: "cortex-tui memory", register };
