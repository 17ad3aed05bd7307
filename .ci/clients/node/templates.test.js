'use strict'
// Multi search, stored scripts and search templates with the official Node
// client (@elastic/elasticsearch 7.17) against a quarry node at QUARRY_URL:
// every call is what an application sends, every expectation is computed
// from the documents indexed here (the same scenario as
// handlers/esclient_templates_test.go).
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/
//
// Uses the index tpl-books and the stored scripts tpl-node-*, deleted before
// and after.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const client = new Client({ node: url, maxRetries: 0, requestTimeout: 30000 })

const INDEX = 'tpl-books'
const SCRIPTS = ['tpl-node-by-genre', 'tpl-node-range']
const pad2 = (i) => String(i).padStart(2, '0')

// 30 books: genre g<i%3>, year 2000+i, title "book <i>".
const books = Array.from({ length: 30 }, (_, i) => ({
  id: `b${pad2(i)}`,
  source: { title: `book ${pad2(i)}`, genre: `g${i % 3}`, year: 2000 + i }
}))
const byGenre = (g) => books.filter((b) => b.source.genre === g)
const ids = (body) => body.hits.hits.map((h) => h._id)

async function raw (promise) {
  try {
    return await promise
  } catch (err) {
    if (err instanceof errors.ResponseError) return err.meta
    throw err
  }
}

async function cleanup () {
  await client.indices.delete({ index: INDEX }, { ignore: [404] })
  for (const id of SCRIPTS) await client.deleteScript({ id }, { ignore: [404] })
}

describe('multi search and search templates with the official client', () => {
  before(async () => {
    await cleanup()
    await client.indices.create({
      index: INDEX,
      body: { mappings: { properties: { title: { type: 'text' }, genre: { type: 'keyword' }, year: { type: 'integer' } } } }
    })
    const body = books.flatMap((b) => [{ index: { _index: INDEX, _id: b.id } }, b.source])
    const res = await client.bulk({ body, refresh: true })
    assert.equal(res.body.errors, false)
  })

  after(async () => {
    await cleanup()
    await client.close()
  })

  it('msearch with one failing entry', async () => {
    const { body, statusCode } = await client.msearch({
      index: INDEX,
      max_concurrent_searches: 2,
      body: [
        {}, { query: { term: { genre: 'g1' } }, size: 0 },
        { index: 'tpl-missing-index' }, { query: { match_all: {} } },
        { index: INDEX }, { query: { range: { year: { gte: 2025 } } }, sort: [{ year: 'desc' }], size: 2 }
      ]
    })
    assert.equal(statusCode, 200)
    assert.equal(body.responses.length, 3)
    assert.deepEqual(body.responses[0].hits.total, { value: byGenre('g1').length, relation: 'eq' })
    assert.equal(body.responses[0].status, 200)
    assert.equal(body.responses[1].status, 404)
    assert.equal(body.responses[1].error.type, 'index_not_found_exception')
    assert.equal(body.responses[1].error.root_cause[0].index, 'tpl-missing-index')
    assert.deepEqual(ids(body.responses[2]), ['b29', 'b28'])
    assert.equal(body.responses[2].status, 200)
  })

  it('msearch rejects a bad header for the whole request', async () => {
    const res = await raw(client.msearch({ body: [{ index: INDEX, size: 1 }, { query: { match_all: {} } }] }))
    assert.equal(res.statusCode, 400)
    assert.equal(res.body.error.type, 'illegal_argument_exception')
    assert.equal(res.body.error.reason, 'key [size] is not supported in the metadata section')
  })

  it('putScript / getScript', async () => {
    const put = await client.putScript({
      id: SCRIPTS[0],
      body: {
        script: {
          lang: 'mustache',
          source: { query: { term: { genre: '{{genre}}' } }, size: '{{size}}{{^size}}10{{/size}}', sort: [{ year: 'asc' }] }
        }
      }
    })
    assert.equal(put.statusCode, 200)
    assert.deepEqual(put.body, { acknowledged: true })
    const put2 = await client.putScript({
      id: SCRIPTS[1],
      context: 'template',
      body: { script: { lang: 'mustache', source: '{"query":{"range":{"year":{"gte":{{from}}}}}}' } }
    })
    assert.deepEqual(put2.body, { acknowledged: true })
    const { body } = await client.getScript({ id: SCRIPTS[1] })
    assert.deepEqual(body, {
      _id: SCRIPTS[1],
      found: true,
      script: { lang: 'mustache', source: '{"query":{"range":{"year":{"gte":{{from}}}}}}' }
    })
    const missing = await raw(client.getScript({ id: 'tpl-node-none' }))
    assert.equal(missing.statusCode, 404)
    assert.deepEqual(missing.body, { _id: 'tpl-node-none', found: false })
  })

  it('searchTemplate by id', async () => {
    const { body, statusCode } = await client.searchTemplate({
      index: INDEX,
      rest_total_hits_as_int: true,
      body: { id: SCRIPTS[0], params: { genre: 'g2', size: 3 } }
    })
    assert.equal(statusCode, 200)
    assert.equal(body.hits.total, byGenre('g2').length)
    assert.deepEqual(ids(body), byGenre('g2').slice(0, 3).map((b) => b.id))
  })

  it('searchTemplate inline', async () => {
    const { body } = await client.searchTemplate({
      index: INDEX,
      body: {
        source: '{"query":{"terms":{"genre":{{#toJson}}genres{{/toJson}}}},"size":{{size}}}',
        params: { genres: ['g0', 'g1'], size: 0 }
      }
    })
    assert.deepEqual(body.hits.total, { value: byGenre('g0').length + byGenre('g1').length, relation: 'eq' })
    assert.deepEqual(body.hits.hits, [])
    const missing = await raw(client.searchTemplate({ index: INDEX, body: { id: 'tpl-node-none' } }))
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.body.error.type, 'resource_not_found_exception')
    const invalid = await raw(client.searchTemplate({ index: INDEX, body: { source: '{"query":{{q}}}', params: { q: 'not json' } } }))
    assert.equal(invalid.statusCode, 400)
    assert.equal(invalid.body.error.type, 'json_parse_exception')
  })

  it('renderSearchTemplate', async () => {
    const byId = await client.renderSearchTemplate({ id: SCRIPTS[1], body: { params: { from: 2020 } } })
    assert.equal(byId.statusCode, 200)
    assert.deepEqual(byId.body, { template_output: { query: { range: { year: { gte: 2020 } } } } })
    const inline = await client.renderSearchTemplate({
      body: {
        source: '{"q":"{{q}}","tags":"{{#join delimiter=\' | \'}}tags{{/join delimiter=\' | \'}}","n":{{n}}}',
        params: { q: 'say "hi"\n', tags: ['a', 'b'], n: 1000000 }
      }
    })
    assert.deepEqual(inline.body, { template_output: { q: 'say "hi"\n', tags: 'a | b', n: 1000000 } })
  })

  it('msearchTemplate', async () => {
    const { body, statusCode } = await client.msearchTemplate({
      index: INDEX,
      rest_total_hits_as_int: true,
      body: [
        {}, { id: SCRIPTS[0], params: { genre: 'g0', size: 1 } },
        {}, { id: 'tpl-node-none' },
        { index: INDEX }, { source: { query: { range: { year: { lt: '{{y}}' } } } }, params: { y: 2003 } }
      ]
    })
    assert.equal(statusCode, 200)
    assert.equal(body.responses.length, 3)
    assert.equal(body.responses[0].hits.total, byGenre('g0').length)
    assert.deepEqual(ids(body.responses[0]), [byGenre('g0')[0].id])
    assert.equal(body.responses[1].status, 404)
    assert.equal(body.responses[1].error.type, 'resource_not_found_exception')
    assert.equal(body.responses[2].hits.total, 3)
  })

  it('deleteScript', async () => {
    const { body } = await client.deleteScript({ id: SCRIPTS[0] })
    assert.deepEqual(body, { acknowledged: true })
    const again = await raw(client.deleteScript({ id: SCRIPTS[0] }))
    assert.equal(again.statusCode, 404)
    assert.equal(again.body.error.type, 'resource_not_found_exception')
  })
})
