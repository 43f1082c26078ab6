-- SPDX-License-Identifier: MIT
-- bench/alloc.lua - an allocation-heavy Lua program for bench/build.sh.
-- Deterministic: prints the same lines on every run and every build
-- (counts and checksums, never addresses or timings).
-- usage: lua alloc.lua [DEPTH]   (default 16)

local depth = tonumber(arg and arg[1]) or 16

-- 1. binary trees (the Benchmarks Game's): many small tables, freed by the GC
local function make(d)
  if d == 0 then return {} end
  d = d - 1
  return { make(d), make(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local long = make(depth)
local total = 0
for d = 4, depth, 2 do
  local iters = 1 << (depth - d + 4)
  local c = 0
  for _ = 1, iters do c = c + check(make(d)) end
  total = total + c
  print(string.format("trees of depth %d: %d, check %d", d, iters, c))
end
print("long-lived tree check " .. check(long) .. ", total " .. total)

-- 2. string building: concatenation, table.concat, gsub, string.rep
local h = 0
for i = 1, 2000 do
  local parts = {}
  for j = 1, 100 do parts[j] = tostring(i * j) .. ":" .. string.rep("x", j % 17) end
  local s = table.concat(parts, ",")
  s = s:gsub("x+", function(x) return #x end)
  for k = 1, #s, 97 do h = (h * 31 + s:byte(k)) % 1000000007 end
end
print("strings hash " .. h)

-- 3. table churn: a pool of tables of varying size, replaced at random
local seed = 12345
local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n + 1 end
local pool, sum = {}, 0
for i = 1, 300000 do
  local t = {}
  for j = 1, rand(24) do t[j] = j end
  if rand(4) == 1 then t.name = "k" .. i end
  pool[rand(4096)] = t
  sum = (sum + #t) % 1000000007
end
local live = 0
for _, t in pairs(pool) do live = live + #t end
print("tables sum " .. sum .. ", live " .. live)
