'use strict'
// The official Node client (@elastic/elasticsearch 7.17) running the search
// features applications use most on the first 3,000 cities of
// ../shared/datasets/cities.ndjson.gz (QUARRY_DATASETS overrides the folder);
// every expectation is computed here from the raw NDJSON.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const datasets = process.env.QUARRY_DATASETS || '/work/shared/datasets'
const citiesFile = path.join(datasets, 'cities.ndjson.gz')
const INDEX = 'node-cities'
const DAY0 = Date.UTC(2020, 0, 1)
const DAY = 86400000

// The standard analyzer for these names: lowercase, words of letters,
// digits and marks; an apostrophe or dot between letters joins them.
function tokens (s) {
  return s.toLowerCase().match(/[\p{L}\p{M}\p{N}_]+(?:['.:’·][\p{L}\p{M}]+)*/gu) || []
}

function loadCities (limit) {
  const lines = zlib.gunzipSync(fs.readFileSync(citiesFile)).toString('utf8').split('\n').slice(0, limit)
  return lines.map((line, i) => {
    const c = JSON.parse(line)
    if (i % 5 !== 0) c.founded = new Date(DAY0 + ((i * 37) % 700) * DAY).toISOString().slice(0, 10)
    c.tokens = tokens(c.name)
    return c
  })
}

// Elasticsearch's arc distance in meters.
function haversine (lat1, lon1, lat2, lon2) {
  const r = 6371008.7714
  const rad = Math.PI / 180
  const dlat = (lat2 - lat1) * rad
  const dlon = (lon2 - lon1) * rad
  const a = Math.sin(dlat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dlon / 2) ** 2
  return 2 * r * Math.asin(Math.sqrt(a))
}

const near = (got, want) => Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want))

describe('official client: search on cities', { skip: !fs.existsSync(citiesFile) && 'no dataset' }, () => {
  const client = new Client({ node: url, maxRetries: 0, requestTimeout: 60000 })
  let cities = []

  before(async () => {
    cities = loadCities(3000)
    await client.indices.delete({ index: INDEX }, { ignore: [404] })
    await client.indices.create({
      index: INDEX,
      body: {
        settings: { number_of_shards: 2 },
        mappings: {
          properties: {
            id: { type: 'keyword' },
            name: { type: 'text' },
            country: { type: 'keyword' },
            feature_code: { type: 'keyword' },
            admin_code: { type: 'keyword' },
            population: { type: 'long' },
            location: { type: 'geo_point' },
            founded: { type: 'date' }
          }
        }
      }
    })
    const body = cities.flatMap((c) => {
      const { tokens, ...source } = c
      return [{ index: { _id: c.id } }, source]
    })
    const { body: res } = await client.bulk({ index: INDEX, refresh: 'true', body })
    assert.equal(res.errors, false)
  })

  after(async () => {
    await client.indices.delete({ index: INDEX }, { ignore: [404] })
    await client.close()
  })

  const vienna = { lat: 48.2082, lon: 16.3738 }
  const cases = [
    ['match', { match: { name: 'san' } }, (c) => c.tokens.includes('san')],
    ['term', { term: { country: 'AT' } }, (c) => c.country === 'AT'],
    ['terms', { terms: { feature_code: ['PPLA', 'PPLC'] } }, (c) => c.feature_code === 'PPLA' || c.feature_code === 'PPLC'],
    ['range', { range: { population: { gte: 20000, lt: 50000 } } }, (c) => c.population >= 20000 && c.population < 50000],
    ['range date', { range: { founded: { gte: '2020-06-01', lt: '2020-07-01' } } }, (c) => c.founded !== undefined && c.founded >= '2020-06-01' && c.founded < '2020-07-01'],
    ['bool', {
      bool: {
        filter: [{ term: { country: 'AT' } }],
        must_not: [{ term: { feature_code: 'PPL' } }],
        should: [{ range: { population: { gte: 5000 } } }],
        minimum_should_match: 1
      }
    }, (c) => c.country === 'AT' && c.feature_code !== 'PPL' && c.population >= 5000],
    ['match_phrase', { match_phrase: { name: 'sankt peter' } }, (c) => c.tokens.some((t, i) => t === 'sankt' && c.tokens[i + 1] === 'peter')],
    ['prefix', { prefix: { admin_code: '0' } }, (c) => c.admin_code.startsWith('0')],
    ['wildcard', { wildcard: { feature_code: 'PPLA?' } }, (c) => /^PPLA.$/.test(c.feature_code)],
    ['exists', { exists: { field: 'founded' } }, (c) => c.founded !== undefined],
    ['ids', { ids: { values: ['3039154', '290594', 'none'] } }, (c) => c.id === '3039154' || c.id === '290594'],
    ['query_string', { query_string: { query: 'country:(AT OR AD) AND population:>50000' } }, (c) => (c.country === 'AT' || c.country === 'AD') && c.population > 50000],
    ['multi_match', { multi_match: { query: 'AD', fields: ['name', 'country', 'feature_code'] } }, (c) => c.country === 'AD' || c.tokens.includes('ad')],
    ['geo_distance', { geo_distance: { distance: '30km', location: vienna } }, (c) => haversine(vienna.lat, vienna.lon, c.location.lat, c.location.lon) <= 30000]
  ]
  for (const [name, query, keep] of cases) {
    it(name, async () => {
      const want = cities.filter(keep).map((c) => c.id).sort()
      assert.ok(want.length > 0 && want.length < cities.length, `case selects ${want.length} cities`)
      const { body } = await client.search({ index: INDEX, body: { query, size: 50, sort: ['id'], _source: false, track_total_hits: true } })
      assert.deepEqual(body.hits.total, { value: want.length, relation: 'eq' })
      assert.deepEqual(body.hits.hits.map((h) => h._id), want.slice(0, 50))
    })
  }

  it('source filtering', async () => {
    const c = cities[7]
    const { body } = await client.search({
      index: INDEX,
      body: { query: { ids: { values: [c.id] } }, _source: { includes: ['name', 'loc*'], excludes: ['location.lat'] } }
    })
    assert.deepEqual(body.hits.hits[0]._source, { name: c.name, location: { lon: c.location.lon } })
    const { body: off } = await client.search({ index: INDEX, _source: false, body: { query: { ids: { values: [c.id] } } } })
    assert.equal(off.hits.hits[0]._source, undefined)
  })

  it('source filtering by URL parameters', async () => {
    const c = cities[11]
    const { body } = await client.search({
      index: INDEX,
      _source_includes: ['name', 'location'],
      _source_excludes: ['location.lon'],
      body: { query: { ids: { values: [c.id] } } }
    })
    assert.deepEqual(body.hits.hits[0]._source, { name: c.name, location: { lat: c.location.lat } })
  })

  it('highlight', async () => {
    // every word of the name that analyzes to "san", wrapped in the tags
    const word = /[\p{L}\p{M}\p{N}_]+(?:['.:’·][\p{L}\p{M}]+)*/gu
    const mark = (name) => name.replace(word, (w) => (w.toLowerCase() === 'san' ? `<b>${w}</b>` : w))
    const want = cities.filter((c) => c.tokens.includes('san')).map((c) => [c.id, [mark(c.name)]]).sort((a, b) => (a[0] < b[0] ? -1 : 1))
    assert.ok(want.length > 1)
    for (const type of ['unified', 'plain']) {
      const { body } = await client.search({
        index: INDEX,
        body: {
          query: { match: { name: 'san' } },
          size: 100,
          sort: ['id'],
          _source: false,
          highlight: { type, pre_tags: ['<b>'], post_tags: ['</b>'], fields: { 'na*': {} } }
        }
      })
      assert.deepEqual(body.hits.hits.map((h) => [h._id, h.highlight.name]), want.slice(0, 100), type)
    }
  })

  it('aggregations', async () => {
    const sel = cities.filter((c) => ['AT', 'AD', 'AE'].includes(c.country))
    const { body } = await client.search({
      index: INDEX,
      body: {
        size: 0,
        query: { terms: { country: ['AT', 'AD', 'AE'] } },
        aggs: {
          c: { terms: { field: 'country' }, aggs: { avg: { avg: { field: 'population' } } } },
          sum: { sum: { field: 'population' } },
          min: { min: { field: 'population' } },
          max: { max: { field: 'population' } },
          avg: { avg: { field: 'population' } },
          vc: { value_count: { field: 'population' } },
          card: { cardinality: { field: 'admin_code' } },
          r: { range: { field: 'population', ranges: [{ to: 1000 }, { from: 1000, to: 100000 }, { from: 100000 }] } },
          d: { date_histogram: { field: 'founded', calendar_interval: 'quarter' } }
        }
      }
    })
    const pops = sel.map((c) => c.population)
    const sum = pops.reduce((a, b) => a + b, 0)
    const counts = new Map()
    const sums = new Map()
    for (const c of sel) {
      counts.set(c.country, (counts.get(c.country) || 0) + 1)
      sums.set(c.country, (sums.get(c.country) || 0) + c.population)
    }
    const buckets = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    assert.deepEqual(body.aggregations.c.buckets.map((b) => [b.key, b.doc_count]), buckets)
    for (const b of body.aggregations.c.buckets) {
      assert.ok(near(b.avg.value, sums.get(b.key) / counts.get(b.key)), `avg ${b.key} = ${b.avg.value}`)
    }
    assert.ok(near(body.aggregations.sum.value, sum))
    assert.equal(body.aggregations.min.value, Math.min(...pops))
    assert.equal(body.aggregations.max.value, Math.max(...pops))
    assert.ok(near(body.aggregations.avg.value, sum / pops.length))
    assert.equal(body.aggregations.vc.value, pops.length)
    assert.equal(body.aggregations.card.value, new Set(sel.map((c) => c.admin_code)).size)
    assert.deepEqual(body.aggregations.r.buckets.map((b) => [b.key, b.doc_count]), [
      ['*-1000.0', pops.filter((p) => p < 1000).length],
      ['1000.0-100000.0', pops.filter((p) => p >= 1000 && p < 100000).length],
      ['100000.0-*', pops.filter((p) => p >= 100000).length]
    ])
    const quarters = new Map()
    for (const c of sel.filter((c) => c.founded !== undefined)) {
      const d = new Date(c.founded + 'T00:00:00Z')
      const q = Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1)
      quarters.set(q, (quarters.get(q) || 0) + 1)
    }
    assert.deepEqual(body.aggregations.d.buckets.map((b) => [b.key, b.doc_count]), [...quarters].sort((a, b) => a[0] - b[0]))
  })

  it('shard failures', async () => {
    // A terms aggregation on a text field fails on both shards alike: one
    // grouped failed_shards entry under a search_phase_execution_exception.
    const reason = 'Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [name] in order to load field data by uninverting the inverted index. Note that this can use significant memory.'
    const iae = { type: 'illegal_argument_exception', reason }
    const err = await client.search({ index: INDEX, body: { size: 0, aggs: { n: { terms: { field: 'name' } } } } }).then(() => null, (e) => e)
    assert.ok(err instanceof errors.ResponseError, String(err))
    assert.equal(err.meta.statusCode, 400)
    const e = err.meta.body.error
    assert.deepEqual(e.root_cause, [iae])
    assert.equal(e.type, 'search_phase_execution_exception')
    assert.equal(e.reason, 'all shards failed')
    assert.equal(e.phase, 'query')
    assert.equal(e.grouped, true)
    assert.equal(e.failed_shards.length, 1)
    assert.equal(e.failed_shards[0].shard, 0)
    assert.equal(e.failed_shards[0].index, INDEX)
    assert.deepEqual(e.failed_shards[0].reason, iae)
    assert.deepEqual(e.caused_by, { ...iae, caused_by: iae })
    // _count reports the same way.
    const cerr = await client.count({ index: INDEX, body: { query: { term: { population: 'many' } } } }).then(() => null, (x) => x)
    assert.equal(cerr.meta.statusCode, 400)
    assert.equal(cerr.meta.body.error.type, 'search_phase_execution_exception')
    assert.equal(cerr.meta.body.error.failed_shards[0].reason.reason, 'failed to create query: For input string: "many"')
    assert.deepEqual(cerr.meta.body.error.failed_shards[0].reason.caused_by, { type: 'number_format_exception', reason: 'For input string: "many"' })
  })
})
