import { RedisScript } from "./redis-script.js";

/**
 * KEYS[1]: hash of one customer's period: spent, reserved (micro-dollars) and r:<nonce> per open
 * reservation (-1 once settled). KEYS[2]: sorted set nonce -> expiry (ms). ARGV[1]: now (ms).
 */
const COMMON = `
local now = tonumber(ARGV[1])
local function purge()
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
  for _, nonce in ipairs(expired) do
    local amount = tonumber(redis.call('HGET', KEYS[1], 'r:' .. nonce))
    if amount and amount > 0 then redis.call('HINCRBY', KEYS[1], 'reserved', -amount) end
    redis.call('HDEL', KEYS[1], 'r:' .. nonce)
    redis.call('ZREM', KEYS[2], nonce)
  end
end
local function totals()
  local t = redis.call('HMGET', KEYS[1], 'spent', 'reserved')
  return tonumber(t[1]) or 0, tonumber(t[2]) or 0
end
purge()
`;

/** ARGV: now, nonce, estimate, hard limit (-1: none), expires at, key ttl. -> {allowed, spent, reserved} */
export const BUDGET_RESERVE_SCRIPT = new RedisScript(`${COMMON}
local spent, reserved = totals()
local estimate = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
if limit >= 0 and spent + reserved + estimate > limit then return {0, spent, reserved} end
redis.call('HSET', KEYS[1], 'r:' .. ARGV[2], estimate)
redis.call('HINCRBY', KEYS[1], 'reserved', estimate)
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {1, spent, reserved + estimate}
`);

/** ARGV: now, nonce, actual, ttl for a key that has none. -> 1 when charged, 0 if already settled */
export const BUDGET_SETTLE_SCRIPT = new RedisScript(`${COMMON}
local field = 'r:' .. ARGV[2]
local amount = tonumber(redis.call('HGET', KEYS[1], field))
if amount == -1 then return 0 end
if amount then
  redis.call('HINCRBY', KEYS[1], 'reserved', -amount)
  redis.call('HSET', KEYS[1], field, -1)
end
redis.call('HINCRBY', KEYS[1], 'spent', ARGV[3])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`);

/** ARGV: now. -> {spent, reserved} */
export const BUDGET_SPEND_SCRIPT = new RedisScript(`${COMMON}
local spent, reserved = totals()
return {spent, reserved}
`);
