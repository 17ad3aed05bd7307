'use strict'
// The official Node client (@elastic/elasticsearch 7.17) against a quarry
// node at QUARRY_URL: every call is what an application using the client
// sends, and every expectation is computed from the documents indexed here
// (the same generator as handlers/esclient_test.go).
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/
//
// The node must be fresh (or at least hold no catalog/scored/rawbulk data:
// the tests delete those indices first). QUARRY_CLUSTER_NAME is the expected
// cluster name (default "quarry").

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const clusterName = process.env.QUARRY_CLUSTER_NAME || 'quarry'

// ---------------------------------------------------------------------------
// Test data: 1,000 generated products.

const COLORS = ['red', 'green', 'blue', 'amber', 'violet']
const ANIMALS = ['fox', 'owl', 'bear', 'wolf', 'hare', 'lynx', 'crow']
const DAY0 = Date.UTC(2021, 0, 1)
const DAY = 86400000
const pad4 = (i) => String(i).padStart(4, '0')

function makeProducts () {
  const out = []
  for (let i = 0; i < 1000; i++) {
    const released = DAY0 + ((i * 7) % 365) * DAY
    const source = {
      name: `${COLORS[i % 5]} ${ANIMALS[i % 7]}`,
      sku: `SKU-${pad4(i)}`,
      tag: `t${i % 10}`,
      qty: (i * 37) % 1000 // a permutation of 0..999
    }
    if (i % 50 !== 7) source.price = ((i * 13) % 400) / 4
    source.released = new Date(released).toISOString().slice(0, 10)
    source.active = i % 3 === 0
    out.push({ id: `p${pad4(i)}`, millis: released, source })
  }
  return out
}

const products = makeProducts()
const byId = new Map(products.map((p) => [p.id, p]))
const tokens = (s) => new Set(s.toLowerCase().split(/\s+/).filter(Boolean))
const where = (ps, f) => ps.filter(f)
const sorted = (ps, cmp) => [...ps].sort(cmp)
const page = (ps, from, size) => ps.slice(from, from + size)
const ids = (ps) => ps.map((p) => p.id)
const cmpStr = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
const bySku = (a, b) => cmpStr(a.source.sku, b.source.sku)
const byQty = (a, b) => a.source.qty - b.source.qty
const eq = (value) => ({ value, relation: 'eq' })

// ---------------------------------------------------------------------------

const client = new Client({ node: url, maxRetries: 0, requestTimeout: 30000 })
const responses = []
client.on('response', (err, result) => {
  const meta = result && result.meta
  const req = meta && meta.request && meta.request.params
  responses.push({
    what: req ? `${req.method} ${req.path}${req.querystring ? '?' + req.querystring : ''}` : '?',
    product: result && result.headers ? result.headers['x-elastic-product'] : undefined,
    err: err && !(err instanceof errors.ResponseError) ? err : null
  })
})

// A call whose HTTP error is part of the expectation.
async function raw (promise) {
  try {
    return await promise
  } catch (err) {
    if (err instanceof errors.ResponseError) return err.meta
    throw err
  }
}

function hitIds (body) {
  return body.hits.hits.map((h) => h._id)
}

describe('official @elastic/elasticsearch 7.17 client', () => {
  before(async () => {
    for (const index of ['catalog', 'scored', 'rawbulk']) {
      await client.indices.delete({ index }, { ignore: [404] })
    }
  })

  after(async () => {
    await client.close()
  })

  it('info (product check passes)', async () => {
    // A fresh client's first request is not GET /: it runs the product check first.
    const fresh = new Client({ node: url, maxRetries: 0 })
    try {
      const { statusCode } = await fresh.cluster.health()
      assert.equal(statusCode, 200)
    } finally {
      await fresh.close()
    }
    const { body, statusCode, headers } = await client.info()
    assert.equal(statusCode, 200)
    assert.equal(headers['x-elastic-product'], 'Elasticsearch')
    assert.equal(body.version.number, '7.17.0')
    assert.equal(body.version.build_flavor, 'default')
    assert.equal(body.version.lucene_version, '8.11.1')
    assert.equal(body.tagline, 'You Know, for Search')
    assert.equal(body.cluster_name, clusterName)
  })

  it('cluster.health', async () => {
    const { body, statusCode } = await client.cluster.health()
    assert.equal(statusCode, 200)
    assert.deepEqual(body, {
      cluster_name: clusterName,
      status: 'green',
      timed_out: false,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: 0,
      active_shards: 0,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: 0,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: 100
    })
  })

  it('indices.create with mappings', async () => {
    const { body, statusCode } = await client.indices.create({
      index: 'catalog',
      body: {
        settings: { number_of_shards: 2, number_of_replicas: 0 },
        mappings: {
          properties: {
            name: { type: 'text' },
            sku: { type: 'keyword' },
            tag: { type: 'keyword' },
            qty: { type: 'integer' },
            price: { type: 'double' },
            released: { type: 'date' },
            active: { type: 'boolean' }
          }
        }
      }
    })
    assert.equal(statusCode, 200)
    assert.deepEqual(body, { acknowledged: true, shards_acknowledged: true, index: 'catalog' })
    for (const index of ['scored', 'rawbulk']) {
      const res = await client.indices.create({
        index,
        body: {
          settings: { number_of_shards: 1, number_of_replicas: 0 },
          mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } }
        }
      })
      assert.deepEqual(res.body, { acknowledged: true, shards_acknowledged: true, index })
    }
    const again = await raw(client.indices.create({ index: 'catalog' }))
    assert.equal(again.statusCode, 400)
    assert.equal(again.body.error.type, 'resource_already_exists_exception')

    const health = await client.cluster.health({ index: 'catalog', wait_for_status: 'green' })
    assert.equal(health.body.status, 'green')
    assert.equal(health.body.active_primary_shards, 2)
    assert.equal(health.body.active_shards, 2)
    assert.equal(health.body.unassigned_shards, 0)
  })

  it('indices.putMapping / indices.getMapping', async () => {
    const put = await client.indices.putMapping({
      index: 'catalog',
      body: { properties: { note: { type: 'keyword', ignore_above: 64 } } }
    })
    assert.equal(put.statusCode, 200)
    assert.deepEqual(put.body, { acknowledged: true })
    const { body, statusCode } = await client.indices.getMapping({ index: 'catalog' })
    assert.equal(statusCode, 200)
    assert.deepEqual(body.catalog.mappings.properties.note, { type: 'keyword', ignore_above: 64 })
    assert.deepEqual(body, {
      catalog: {
        mappings: {
          properties: {
            active: { type: 'boolean' },
            name: { type: 'text' },
            note: { type: 'keyword', ignore_above: 64 },
            price: { type: 'double' },
            qty: { type: 'integer' },
            released: { type: 'date' },
            sku: { type: 'keyword' },
            tag: { type: 'keyword' }
          }
        }
      }
    })
  })

  const scored = [['s1', 'fox fox fox'], ['s2', 'fox fox dog'], ['s3', 'fox dog cat'], ['s4', 'dog cat owl']]

  it('index with refresh', async () => {
    for (const [i, [id, title]] of scored.entries()) {
      const { body, statusCode } = await client.index({ index: 'scored', id, refresh: true, body: { title, n: i + 1 } })
      assert.equal(statusCode, 201)
      assert.deepEqual(body, {
        _index: 'scored',
        _type: '_doc',
        _id: id,
        _version: 1,
        result: 'created',
        forced_refresh: true,
        _shards: { total: 1, successful: 1, failed: 0 },
        _seq_no: i,
        _primary_term: 1
      })
    }
    const { body } = await client.count({ index: 'scored' })
    assert.equal(body.count, 4)
  })

  it('helpers.bulk of 1,000 documents', async () => {
    const dropped = []
    const seen = new Set()
    const stats = await client.helpers.bulk({
      datasource: products.map((p) => p.source),
      onDocument (doc) {
        const id = `p${doc.sku.slice(4)}`
        seen.add(id)
        return { index: { _index: 'catalog', _id: id } }
      },
      onDrop (d) { dropped.push(d) },
      flushBytes: 16 * 1024, // several bulk requests
      concurrency: 2,
      refreshOnCompletion: 'catalog'
    })
    assert.deepEqual(dropped, [])
    assert.equal(seen.size, 1000)
    assert.equal(stats.total, 1000)
    assert.equal(stats.successful, 1000)
    assert.equal(stats.failed, 0)
    assert.equal(stats.retry, 0)
    assert.equal(stats.aborted, false)
    const { body } = await client.count({ index: 'catalog' })
    assert.equal(body.count, 1000)
  })

  it('raw client.bulk with 1,000 items answers in request order', async () => {
    const sent = []
    const body = []
    for (let i = 0; i < 1000; i++) {
      const id = `r${String((i * 7919) % 1000).padStart(3, '0')}` // not in id order
      const action = i % 2 === 1 ? 'create' : 'index'
      sent.push({ action, id })
      body.push({ [action]: { _id: id } }, { title: `raw item ${i}`, n: i })
    }
    const res = await client.bulk({ index: 'rawbulk', refresh: true, body })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body.errors, false)
    assert.equal(typeof res.body.took, 'number')
    assert.equal(res.body.items.length, 1000)
    const wrong = []
    res.body.items.forEach((item, i) => {
      const keys = Object.keys(item)
      const r = item[sent[i].action]
      if (keys.length !== 1 || !r || r._id !== sent[i].id || r._index !== 'rawbulk' ||
          r.status !== 201 || r.result !== 'created' || r._version !== 1) {
        wrong.push({ i, want: sent[i], got: item })
      }
    })
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} items out of order or wrong`)
    const { body: count } = await client.count({ index: 'rawbulk' })
    assert.equal(count.count, 1000)
  })

  it('count', async () => {
    const shards = { total: 2, successful: 2, skipped: 0, failed: 0 }
    let res = await client.count({ index: 'catalog' })
    assert.deepEqual(res.body, { count: 1000, _shards: shards })
    res = await client.count({ index: 'catalog', body: { query: { term: { tag: 't3' } } } })
    assert.deepEqual(res.body, { count: where(products, (p) => p.source.tag === 't3').length, _shards: shards })
    res = await client.count({ index: 'catalog', body: { query: { match: { name: 'fox' } } } })
    assert.deepEqual(res.body, { count: where(products, (p) => tokens(p.source.name).has('fox')).length, _shards: shards })
  })

  it('get', async () => {
    const { body, statusCode } = await client.get({ index: 'catalog', id: 'p0042' })
    assert.equal(statusCode, 200)
    assert.equal(typeof body._seq_no, 'number')
    const { _seq_no: _, ...rest } = body
    assert.deepEqual(rest, {
      _index: 'catalog',
      _type: '_doc',
      _id: 'p0042',
      _version: 1,
      _primary_term: 1,
      found: true,
      _source: byId.get('p0042').source
    })
    const noSource = await client.get({ index: 'catalog', id: 'p0042', _source: false })
    assert.equal(noSource.body.found, true)
    assert.equal(noSource.body._source, undefined)

    const missing = await raw(client.get({ index: 'catalog', id: 'p9999' }))
    assert.equal(missing.statusCode, 404)
    assert.deepEqual(missing.body, { _index: 'catalog', _type: '_doc', _id: 'p9999', found: false })
    const ignored = await client.get({ index: 'catalog', id: 'p9999' }, { ignore: [404] })
    assert.equal(ignored.body.found, false)

    const noIndex = await raw(client.get({ index: 'nosuchindex', id: '1' }))
    assert.equal(noIndex.statusCode, 404)
    assert.equal(noIndex.body.error.type, 'index_not_found_exception')
  })

  it('delete', async () => {
    const { body, statusCode } = await client.delete({ index: 'scored', id: 's4', refresh: true })
    assert.equal(statusCode, 200)
    assert.deepEqual(body, {
      _index: 'scored',
      _type: '_doc',
      _id: 's4',
      _version: 2,
      result: 'deleted',
      forced_refresh: true,
      _shards: { total: 1, successful: 1, failed: 0 },
      _seq_no: 4,
      _primary_term: 1
    })
    const again = await raw(client.delete({ index: 'scored', id: 's4' }))
    assert.equal(again.statusCode, 404)
    assert.equal(again.body.result, 'not_found')
    const gone = await raw(client.get({ index: 'scored', id: 's4' }))
    assert.equal(gone.statusCode, 404)
    assert.equal(gone.body.found, false)
    const { body: count } = await client.count({ index: 'scored' })
    assert.equal(count.count, 3)
  })

  describe('search', () => {
    const all = products
    const src = (p) => p.source
    const fox = where(all, (p) => tokens(src(p).name).has('fox'))
    const redOrFox = where(all, (p) => tokens(src(p).name).has('red') || tokens(src(p).name).has('fox'))
    const redAndFox = where(all, (p) => tokens(src(p).name).has('red') && tokens(src(p).name).has('fox'))
    const t3 = where(all, (p) => src(p).tag === 't3')
    const active = where(all, (p) => src(p).active)
    const t1t2 = where(all, (p) => src(p).tag === 't1' || src(p).tag === 't2')
    const qty100 = where(all, (p) => src(p).qty >= 100 && src(p).qty < 110)
    const priced = where(all, (p) => src(p).price !== undefined)
    const unpriced = where(all, (p) => src(p).price === undefined)
    const priceDescCmp = (a, b) => (b.source.price - a.source.price) || bySku(a, b)
    const pricey = where(priced, (p) => src(p).price > 99)
    const march = where(all, (p) => p.millis >= Date.UTC(2021, 2, 1) && p.millis <= Date.UTC(2021, 2, 7))
    const dateAscCmp = (a, b) => (a.millis - b.millis) || bySku(a, b)
    const dateDescCmp = (a, b) => (b.millis - a.millis) || bySku(a, b)
    const boolSet = where(all, (p) => tokens(src(p).name).has('fox') && src(p).active && src(p).tag !== 't0')
    const shouldSet = where(all, (p) => (tokens(src(p).name).has('owl') || src(p).tag === 't9') && src(p).qty < 500)
    const qtyAsc = sorted(all, byQty)
    const skuDesc = sorted(all, (a, b) => bySku(b, a))

    const cases = [
      {
        name: 'match_all sorted by sku',
        body: { query: { match_all: {} }, sort: [{ sku: 'asc' }], size: 5 },
        total: eq(1000),
        ids: ids(page(sorted(all, bySku), 0, 5)),
        sortValues: page(sorted(all, bySku), 0, 5).map((p) => [p.source.sku])
      },
      {
        name: 'match_all default size',
        body: { query: { match_all: {} } },
        total: eq(1000),
        check (body) {
          assert.equal(body.hits.hits.length, 10)
          assert.equal(body.hits.max_score, 1)
          for (const h of body.hits.hits) {
            assert.equal(h._score, 1)
            assert.equal(h.sort, undefined)
          }
        }
      },
      {
        name: 'match',
        body: { query: { match: { name: 'fox' } }, sort: [{ qty: 'asc' }] },
        total: eq(fox.length),
        ids: ids(page(sorted(fox, byQty), 0, 10)),
        sortValues: page(sorted(fox, byQty), 0, 10).map((p) => [p.source.qty])
      },
      {
        name: 'match or',
        body: { query: { match: { name: 'Red FOX' } }, sort: [{ qty: 'asc' }], size: 20 },
        total: eq(redOrFox.length),
        ids: ids(page(sorted(redOrFox, byQty), 0, 20))
      },
      {
        name: 'match and',
        body: { query: { match: { name: { query: 'red fox', operator: 'and' } } }, size: 100 },
        total: eq(redAndFox.length),
        ids: ids(redAndFox),
        unordered: true
      },
      {
        name: 'term keyword',
        body: { query: { term: { tag: 't3' } }, sort: [{ sku: 'desc' }], size: 4 },
        total: eq(t3.length),
        ids: ids(page(sorted(t3, (a, b) => bySku(b, a)), 0, 4))
      },
      { name: 'term keyword is exact', body: { query: { term: { sku: 'sku-0042' } } }, total: eq(0), ids: [] },
      { name: 'term single', body: { query: { term: { sku: { value: 'SKU-0042' } } } }, total: eq(1), ids: ['p0042'] },
      { name: 'term boolean', body: { query: { term: { active: true } }, size: 0 }, total: eq(active.length), ids: [] },
      {
        name: 'terms',
        body: { query: { terms: { tag: ['t1', 't2', 'nope'] } }, sort: ['sku'], size: 3 },
        total: eq(t1t2.length),
        ids: ids(page(sorted(t1t2, bySku), 0, 3)),
        sortValues: page(sorted(t1t2, bySku), 0, 3).map((p) => [p.source.sku])
      },
      {
        name: 'range integer',
        body: { query: { range: { qty: { gte: 100, lt: 110 } } }, sort: [{ qty: { order: 'asc' } }] },
        total: eq(qty100.length),
        ids: ids(sorted(qty100, byQty)),
        sortValues: sorted(qty100, byQty).map((p) => [p.source.qty])
      },
      {
        name: 'range double',
        body: { query: { range: { price: { gt: 99 } } }, sort: [{ price: 'desc' }, { sku: 'asc' }] },
        total: eq(pricey.length),
        ids: ids(sorted(pricey, priceDescCmp)),
        sortValues: sorted(pricey, priceDescCmp).map((p) => [p.source.price, p.source.sku])
      },
      {
        name: 'range date',
        body: { query: { range: { released: { gte: '2021-03-01', lte: '2021-03-07' } } }, sort: [{ released: 'asc' }, { sku: 'asc' }], size: 50 },
        total: eq(march.length),
        ids: ids(sorted(march, dateAscCmp)),
        sortValues: sorted(march, dateAscCmp).map((p) => [p.millis, p.source.sku])
      },
      {
        name: 'bool must filter must_not',
        body: {
          query: { bool: { must: [{ match: { name: 'fox' } }], filter: [{ term: { active: true } }], must_not: [{ term: { tag: 't0' } }] } },
          sort: [{ qty: 'desc' }],
          size: 5
        },
        total: eq(boolSet.length),
        ids: ids(page(sorted(boolSet, (a, b) => byQty(b, a)), 0, 5))
      },
      {
        name: 'bool should minimum_should_match',
        body: {
          query: { bool: { should: [{ match: { name: 'owl' } }, { term: { tag: 't9' } }], minimum_should_match: 1, filter: { range: { qty: { lt: 500 } } } } },
          sort: ['qty'],
          size: 1000
        },
        total: eq(shouldSet.length),
        ids: ids(sorted(shouldSet, byQty))
      },
      { name: 'exists', body: { query: { exists: { field: 'price' } }, size: 0 }, total: eq(priced.length), ids: [] },
      {
        name: 'not exists',
        body: { query: { bool: { must_not: { exists: { field: 'price' } } } }, sort: ['sku'], size: 100 },
        total: eq(unpriced.length),
        ids: ids(sorted(unpriced, bySku))
      },
      {
        name: 'ids',
        body: { query: { ids: { values: ['p0500', 'p0005', 'nope'] } } },
        total: eq(2),
        ids: ['p0005', 'p0500'],
        unordered: true
      },
      {
        name: 'from/size',
        body: { sort: [{ qty: 'asc' }], from: 5, size: 3 },
        total: eq(1000),
        ids: ids(page(qtyAsc, 5, 3)),
        sortValues: page(qtyAsc, 5, 3).map((p) => [p.source.qty])
      },
      {
        name: 'from/size past the end',
        body: { sort: [{ qty: 'asc' }], from: 995, size: 20 },
        total: eq(1000),
        ids: ids(page(qtyAsc, 995, 20))
      },
      {
        name: 'sort keyword desc',
        body: { sort: [{ sku: { order: 'desc' } }], size: 3 },
        total: eq(1000),
        ids: ids(page(skuDesc, 0, 3)),
        sortValues: page(skuDesc, 0, 3).map((p) => [p.source.sku]),
        check (body) {
          assert.equal(body.hits.max_score, null)
          assert.equal(body.hits.hits[0]._score, null)
        }
      },
      {
        name: 'sort numeric double',
        body: { sort: [{ price: 'desc' }, { sku: 'asc' }], size: 6 },
        total: eq(1000),
        ids: ids(page(sorted(priced, priceDescCmp), 0, 6)),
        sortValues: page(sorted(priced, priceDescCmp), 0, 6).map((p) => [p.source.price, p.source.sku])
      },
      {
        name: 'sort date',
        body: { sort: [{ released: 'desc' }, { sku: 'asc' }], size: 4 },
        total: eq(1000),
        ids: ids(page(sorted(all, dateDescCmp), 0, 4)),
        sortValues: page(sorted(all, dateDescCmp), 0, 4).map((p) => [p.millis, p.source.sku])
      },
      {
        name: 'sort _score',
        index: 'scored',
        body: { query: { match: { title: 'fox' } }, sort: ['_score'] },
        total: eq(3),
        ids: ['s1', 's2', 's3'],
        check (body) {
          let prev = Infinity
          for (const h of body.hits.hits) {
            assert.ok(h._score > 0 && h._score < prev, `_score ${h._score} after ${prev}`)
            prev = h._score
            // Sorting on _score alone is the default order: no sort values.
            assert.equal(h.sort, undefined)
          }
          assert.equal(body.hits.max_score, body.hits.hits[0]._score)
        }
      },
      {
        name: 'sort _score then field',
        index: 'scored',
        body: { query: { match: { title: 'dog' } }, sort: [{ _score: 'desc' }, { n: 'desc' }] },
        total: eq(2),
        ids: ['s3', 's2'],
        check (body) {
          const [a, b] = body.hits.hits
          assert.equal(a.sort.length, 2)
          assert.ok(a.sort[0] > 0)
          assert.equal(a.sort[0], b.sort[0]) // equal length, one "dog" each
          assert.deepEqual([a.sort[1], b.sort[1]], [3, 2])
        }
      },
      { name: 'track_total_hits true', body: { track_total_hits: true, size: 0 }, total: eq(1000), ids: [] },
      { name: 'track_total_hits false', body: { track_total_hits: false, size: 1, sort: ['sku'] }, total: undefined, ids: ['p0000'] },
      { name: 'track_total_hits 100', body: { track_total_hits: 100, size: 0 }, total: { value: 100, relation: 'gte' }, ids: [] },
      {
        name: 'track_total_hits above the count',
        body: { track_total_hits: 5000, query: { term: { tag: 't3' } }, size: 0 },
        total: eq(t3.length),
        ids: []
      },
      {
        name: '_source on',
        body: { query: { ids: { values: ['p0007', 'p0010'] } }, sort: ['sku'] },
        total: eq(2),
        ids: ['p0007', 'p0010'],
        check (body) {
          for (const h of body.hits.hits) {
            assert.deepEqual(h._source, byId.get(h._id).source)
            assert.equal(h._index, 'catalog')
            assert.equal(h._type, '_doc')
          }
        }
      },
      {
        name: '_source off',
        body: { _source: false, query: { ids: { values: ['p0007'] } } },
        total: eq(1),
        ids: ['p0007'],
        check (body) {
          assert.equal('_source' in body.hits.hits[0], false)
        }
      },
      {
        name: '_source includes',
        body: { _source: ['sku', 'qty'], query: { ids: { values: ['p0007'] } } },
        total: eq(1),
        ids: ['p0007'],
        check (body) {
          const p = byId.get('p0007')
          assert.deepEqual(body.hits.hits[0]._source, { sku: p.source.sku, qty: p.source.qty })
        }
      }
    ]

    for (const tc of cases) {
      it(tc.name, async () => {
        const { body, statusCode } = await client.search({ index: tc.index || 'catalog', body: tc.body })
        assert.equal(statusCode, 200)
        assert.equal(body.timed_out, false)
        if (tc.total === undefined) {
          assert.equal('total' in body.hits, false, `hits.total present: ${JSON.stringify(body.hits.total)}`)
        } else {
          assert.deepEqual(body.hits.total, tc.total)
        }
        if (tc.ids) {
          let got = hitIds(body)
          let want = tc.ids
          if (tc.unordered) {
            got = [...got].sort()
            want = [...want].sort()
          }
          assert.deepEqual(got, want)
        }
        if (tc.sortValues) {
          assert.deepEqual(body.hits.hits.map((h) => h.sort), tc.sortValues)
        }
        if (tc.check) tc.check(body)
      })
    }
  })

  it('every response carries X-Elastic-Product: Elasticsearch', () => {
    assert.ok(responses.length > 40, `only ${responses.length} responses seen`)
    const transportErrors = responses.filter((r) => r.err)
    assert.deepEqual(transportErrors.map((r) => `${r.what}: ${r.err.name} ${r.err.message}`), [])
    const missing = responses.filter((r) => r.product !== 'Elasticsearch')
    assert.deepEqual(missing.map((r) => r.what), [])
  })
})
