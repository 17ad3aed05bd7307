'use strict'
// Pagination with the official Node client (@elastic/elasticsearch 7.17)
// against a quarry node at QUARRY_URL: the scroll helpers, point in time with
// search_after and _shard_doc, the point-in-time snapshot, and sliced scroll.
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/
//
// Uses the indices pages and pages_pit, deleted before and after.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const client = new Client({ node: url, maxRetries: 0, requestTimeout: 30000 })

const N = 537
const pad = (i) => String(i).padStart(4, '0')
const allIds = Array.from({ length: N }, (_, i) => `d${pad(i)}`)

async function raw (promise) {
  try {
    return await promise
  } catch (err) {
    if (err instanceof errors.ResponseError) return err.meta
    throw err
  }
}

async function seed (index, shards) {
  await client.indices.create({
    index,
    body: {
      settings: { number_of_shards: shards },
      mappings: { properties: { n: { type: 'integer' }, tag: { type: 'keyword' } } }
    }
  })
  const body = []
  for (let i = 0; i < N; i++) {
    body.push({ index: { _index: index, _id: `d${pad(i)}` } }, { n: i, tag: `t${i % 7}` })
  }
  const { body: res } = await client.bulk({ refresh: true, body })
  assert.equal(res.errors, false)
}

// Pages through a point in time with search_after until an empty page.
async function pitPages (pit, extra) {
  const seen = []
  let searchAfter
  let id = pit
  for (;;) {
    const { body } = await client.search({
      body: { size: 50, track_total_hits: false, pit: { id, keep_alive: '1m' }, search_after: searchAfter, ...extra }
    })
    assert.ok(body.pit_id)
    id = body.pit_id
    if (body.hits.hits.length === 0) return seen
    for (const h of body.hits.hits) seen.push(h._id)
    searchAfter = body.hits.hits[body.hits.hits.length - 1].sort
  }
}

describe('pagination with the official client', () => {
  before(async () => {
    await client.indices.delete({ index: 'pages,pages_pit' }, { ignore: [404] })
    await seed('pages', 3)
  })

  after(async () => {
    await client.indices.delete({ index: 'pages,pages_pit' }, { ignore: [404] })
    await client.close()
  })

  it('helpers.scrollDocuments returns every document once, sorted by _doc', async () => {
    const seen = []
    for await (const doc of client.helpers.scrollDocuments({
      index: 'pages', size: 100, scroll: '30s', body: { sort: ['_doc'], query: { match_all: {} } }
    })) {
      seen.push(`d${pad(doc.n)}`)
    }
    assert.deepEqual([...seen].sort(), allIds)
  })

  it('helpers.scrollSearch pages in sort order and clearScroll frees the context', async () => {
    const ns = []
    let last
    for await (const result of client.helpers.scrollSearch({
      index: 'pages', size: 200, scroll: '30s', body: { sort: [{ n: 'desc' }] }
    })) {
      for (const h of result.body.hits.hits) ns.push(h._source.n)
      last = result.body._scroll_id
    }
    assert.deepEqual(ns, Array.from({ length: N }, (_, i) => N - 1 - i))
    // the helper cleared the scroll at the end: clearing again finds nothing
    const meta = await raw(client.clearScroll({ body: { scroll_id: last } }))
    assert.equal(meta.statusCode, 404)
    assert.deepEqual(meta.body, { succeeded: true, num_freed: 0 })

    const { body: first } = await client.search({ index: 'pages', scroll: '1m', size: 10 })
    const { body: cleared, statusCode } = await client.clearScroll({ scroll_id: first._scroll_id })
    assert.equal(statusCode, 200)
    assert.deepEqual(cleared, { succeeded: true, num_freed: 1 })
    const gone = await raw(client.scroll({ scroll_id: first._scroll_id, scroll: '1m' }))
    assert.equal(gone.statusCode, 404)
    assert.equal(gone.body.error.type, 'search_context_missing_exception')
  })

  it('point in time + search_after + _shard_doc pages every document once', async () => {
    const { body: opened } = await client.openPointInTime({ index: 'pages', keep_alive: '1m' })
    try {
      const explicit = await pitPages(opened.id, { sort: [{ _shard_doc: 'asc' }] })
      assert.equal(explicit.length, N)
      assert.deepEqual([...explicit].sort(), allIds)
      const implicit = await pitPages(opened.id, { sort: [{ tag: 'asc' }] })
      assert.equal(implicit.length, N)
      assert.deepEqual([...implicit].sort(), allIds)
      const desc = await pitPages(opened.id, { sort: [{ _shard_doc: 'desc' }] })
      assert.deepEqual(desc, [...explicit].reverse())
    } finally {
      const { body } = await client.closePointInTime({ body: { id: opened.id } })
      assert.deepEqual(body, { succeeded: true, num_freed: 1 })
    }
  })

  it('a point in time is a snapshot: documents added, changed or deleted later are not seen', async () => {
    await seed('pages_pit', 2)
    const { body: opened } = await client.openPointInTime({ index: 'pages_pit', keep_alive: '1m' })
    await client.index({ index: 'pages_pit', id: 'late', body: { n: -1, tag: 'late' }, refresh: true })
    await client.index({ index: 'pages_pit', id: 'd0000', body: { n: 0, tag: 'changed' }, refresh: true })
    await client.delete({ index: 'pages_pit', id: 'd0001', refresh: true })
    const seen = await pitPages(opened.id, { sort: [{ n: 'asc' }] })
    assert.deepEqual([...seen].sort(), allIds)
    const { body } = await client.search({ body: { size: 1, sort: [{ n: 'asc' }], pit: { id: opened.id } } })
    assert.deepEqual(body.hits.hits[0]._source, { n: 0, tag: 't0' })
    assert.deepEqual(body.hits.total, { value: N, relation: 'eq' })
    const { body: live } = await client.count({ index: 'pages_pit' })
    assert.equal(live.count, N)
    const { body: liveFirst } = await client.search({ index: 'pages_pit', body: { size: 1, sort: [{ n: 'asc' }] } })
    assert.equal(liveFirst.hits.hits[0]._id, 'late')
    await client.closePointInTime({ body: { id: opened.id } })
    const gone = await raw(client.search({ body: { pit: { id: opened.id } } }))
    assert.equal(gone.statusCode, 404)
    assert.equal(gone.body.error.type, 'search_context_missing_exception')
  })

  it('sliced scroll returns every document exactly once', async () => {
    const max = 4
    const slices = await Promise.all(Array.from({ length: max }, async (_, id) => {
      const seen = []
      for await (const doc of client.helpers.scrollDocuments({
        index: 'pages', size: 64, scroll: '30s', body: { slice: { id, max }, sort: ['_doc'] }
      })) {
        seen.push(`d${pad(doc.n)}`)
      }
      return seen
    }))
    for (const s of slices) assert.ok(s.length > 0)
    assert.deepEqual(slices.flat().sort(), allIds)
  })
})
