import { WINDOW_MS } from "./gcra.js";
import { RedisScript } from "./redis-script.js";

/**
 * The GCRA of gcra.ts in Lua, one hash per caller: rl/ra (requests level, last update) and tl/ta
 * (tokens). Limits of 0 mean unlimited. Levels are integers (see gcra.ts), so doubles are exact.
 */
const COMMON = `
local W = ${WINDOW_MS}
local now = tonumber(ARGV[1])
local function drained(level, at, limit)
  local e = now - at
  if e < 0 then e = 0 end
  local l = level - e * limit
  if l < 0 then l = 0 end
  return l
end
local function keep(ttl)
  local current = redis.call('PTTL', KEYS[1])
  if current < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
end
`;

/** ARGV: now, rpm, tpm, reserved tokens. Returns {allowed 0/1, requests level, tokens level}. */
export const ADMIT_SCRIPT = new RedisScript(`${COMMON}
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local s = redis.call('HMGET', KEYS[1], 'rl', 'ra', 'tl', 'ta')
local ra = tonumber(s[2]) or 0
local ta = tonumber(s[4]) or 0
local r = 0
local t = 0
if rpm > 0 then r = drained(tonumber(s[1]) or 0, ra, rpm) end
if tpm > 0 then t = drained(tonumber(s[3]) or 0, ta, tpm) end
if (rpm > 0 and r + W > rpm * W) or (tpm > 0 and t + cost * W > tpm * W) then
  return {0, r, t}
end
local ttl = 0
if rpm > 0 then
  r = r + W
  redis.call('HSET', KEYS[1], 'rl', r, 'ra', math.max(ra, now))
  ttl = math.ceil(r / rpm)
end
if tpm > 0 then
  t = t + cost * W
  redis.call('HSET', KEYS[1], 'tl', t, 'ta', math.max(ta, now))
  ttl = math.max(ttl, math.ceil(t / tpm))
end
if ttl > 0 then keep(ttl + 1000) end
return {1, r, t}
`);

/** ARGV: now, tpm, token delta (negative refunds). Returns the new tokens level. */
export const SETTLE_SCRIPT = new RedisScript(`${COMMON}
local tpm = tonumber(ARGV[2])
local delta = tonumber(ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'tl', 'ta')
local ta = tonumber(s[2]) or 0
local t = drained(tonumber(s[1]) or 0, ta, tpm) + delta * W
if t < 0 then t = 0 end
redis.call('HSET', KEYS[1], 'tl', t, 'ta', math.max(ta, now))
keep(math.ceil(t / tpm) + 1000)
return t
`);
