#!lua name=__LIBRARY__
-- Links (id, source, target) kept the way doublets keeps them, loaded by both the Rust and the C# benches.
--
-- __LIBRARY__ stands for the name the benches load this library under: `rvd_` and the first 12 hex
-- digits of this file's SHA-1. Function names share one server-wide namespace, so every function is
-- registered as __LIBRARY___<name>: a library of a user's never collides with this one, never is
-- replaced by it, and a run removes only the library it loaded itself.
--
--   links                 hash   id -> "source:target"
--   out:{source}          hash   id -> target      (links that start at source)
--   in:{target}           hash   id -> source      (links that end at target)
--   pair:{source}:{target} set   ids               (the link from source to target)
--   links:allocated       string the highest id in use
--   links:free            list   ids below links:allocated that were deleted, most recent first
--
-- Every change is one FCALL, so a link and its indexes never disagree. Redis keeps the writes a
-- function made before an error, so every argument is checked before the first write.
-- Null (0) endpoints are not indexed, as in doublets: any number of links can rest at (0, 0).
-- Ids are reused like doublets reuses them (most recently deleted first; deleting the highest id
-- shrinks the range), so both stores hand out the same ids for the same requests.
-- Keys are computed from the arguments, so this library cannot run on Redis Cluster.

local MAX = '18446744073709551615'

-- Servers with functions (Redis 7 and later) load this file with FUNCTION LOAD, and `register`
-- hands each function to them. Servers with scripts only (Garnet) run the file, without its #!lua
-- line, as one script on every call: EVALSHA <sha> 0 <name> <arguments…>; `register` then keeps
-- the functions here, and the last lines of the file call the one named.
local functions = {}
local function register(name, body)
  if redis.register_function then
    redis.register_function('__LIBRARY__' .. '_' .. name, body)
  else
    functions[name] = body
  end
end

-- A canonical decimal u64: digits only, no leading zero, at most 2^64 - 1. Values stay strings,
-- because Lua numbers are doubles and would round ids above 2^53.
local function number(args, i, what)
  local value = args[i]
  if value == nil then
    return redis.error_reply('ERR ' .. what .. ' is missing')
  end
  if not string.match(value, '^[0-9]+$') or (#value > 1 and string.sub(value, 1, 1) == '0')
      or #value > #MAX or (#value == #MAX and value > MAX) then
    return redis.error_reply('ERR ' .. what .. ' must be a whole number from 0 to ' .. MAX .. ', got "' .. value .. '"')
  end
  return value
end

local function link_id(args, i)
  local id = number(args, i, 'id')
  if type(id) == 'table' then return id end
  if redis.call('HEXISTS', 'links', id) == 0 then
    return redis.error_reply('ERR link ' .. id .. ' does not exist')
  end
  return id
end

local function index(id, source, target)
  redis.call('HSET', 'links', id, source .. ':' .. target)
  if source ~= '0' then redis.call('HSET', 'out:' .. source, id, target) end
  if target ~= '0' then redis.call('HSET', 'in:' .. target, id, source) end
  if source ~= '0' and target ~= '0' then redis.call('SADD', 'pair:' .. source .. ':' .. target, id) end
end

local function unindex(id)
  local stored = redis.call('HGET', 'links', id)
  local source, target = string.match(stored, '^(%d+):(%d+)$')
  if source ~= '0' then redis.call('HDEL', 'out:' .. source, id) end
  if target ~= '0' then redis.call('HDEL', 'in:' .. target, id) end
  if source ~= '0' and target ~= '0' then redis.call('SREM', 'pair:' .. source .. ':' .. target, id) end
end

local function allocate()
  local reused = redis.call('LPOP', 'links:free')
  if reused then return reused end
  return tostring(redis.call('INCR', 'links:allocated'))
end

local function release(id)
  local allocated = tonumber(redis.call('GET', 'links:allocated'))
  if tonumber(id) < allocated then
    redis.call('LPUSH', 'links:free', id)
    return
  end
  allocated = allocated - 1
  while allocated > 0 and redis.call('HEXISTS', 'links', allocated) == 0 do
    redis.call('LREM', 'links:free', 1, allocated)
    allocated = allocated - 1
  end
  redis.call('SET', 'links:allocated', allocated)
end

-- create_point() -> id of the new link (id, id)
register('create_point', function()
  local id = allocate()
  index(id, id, id)
  return tonumber(id)
end)

-- create(source, target) -> id of the new link (id, source, target)
register('create', function(_, args)
  local source = number(args, 1, 'source')
  if type(source) == 'table' then return source end
  local target = number(args, 2, 'target')
  if type(target) == 'table' then return target end
  local id = allocate()
  index(id, source, target)
  return tonumber(id)
end)

-- update(id, source, target) -> id
register('update', function(_, args)
  local id = link_id(args, 1)
  if type(id) == 'table' then return id end
  local source = number(args, 2, 'source')
  if type(source) == 'table' then return source end
  local target = number(args, 3, 'target')
  if type(target) == 'table' then return target end
  unindex(id)
  index(id, source, target)
  return tonumber(id)
end)

-- delete(id) -> id
register('delete', function(_, args)
  local id = link_id(args, 1)
  if type(id) == 'table' then return id end
  unindex(id)
  redis.call('HDEL', 'links', id)
  release(id)
  return tonumber(id)
end)

-- create_points(count) -> id of the first of count new point links. Loads the background in a
-- few calls instead of one per link; with no free ids the new ids are consecutive, else it
-- falls back to one allocation each (callers then read ids from the store).
register('create_points', function(_, args)
  local count = number(args, 1, 'count')
  if type(count) == 'table' then return count end
  count = tonumber(count)
  if count < 1 or count > 1000000 then
    return redis.error_reply('ERR count must be from 1 to 1000000, got ' .. count)
  end
  if redis.call('LLEN', 'links:free') > 0 then
    return redis.error_reply('ERR create_points needs a store without deleted ids')
  end
  local last = redis.call('INCRBY', 'links:allocated', count)
  local first = last - count + 1
  for id = first, last do
    local key = tostring(id)
    redis.call('HSET', 'links', key, key .. ':' .. key)
    redis.call('HSET', 'out:' .. key, key, key)
    redis.call('HSET', 'in:' .. key, key, key)
    redis.call('SADD', 'pair:' .. key .. ':' .. key, key)
  end
  return first
end)

-- Called as a script: run the function ARGV[1] names with the arguments after it.
if not redis.register_function then
  local body = functions[ARGV[1]]
  if body == nil then
    return redis.error_reply('ERR redis/links.lua has no function "' .. tostring(ARGV[1]) .. '"')
  end
  return body(KEYS, { unpack(ARGV, 2) })
end
