'use strict'
// The official App Search Node client (@elastic/app-search-node 8.3.2)
// against a quarry node at QUARRY_PLAIN_URL (the superuser's
// Basic credentials create the keys, as the README's quick start does).
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/appsearch.test.js

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const AppSearchClient = require('@elastic/app-search-node')

const url = process.env.QUARRY_PLAIN_URL || process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const base = `${url}/api/as/v1/`
const superuser = 'Basic ' + Buffer.from('elastic:' + (process.env.QUARRY_ELASTIC_PASSWORD || 'changeme')).toString('base64')

// createKey makes a key with the superuser and returns its secret.
async function createKey (body) {
  const res = await fetch(`${base}credentials`, {
    method: 'POST',
    headers: { Authorization: superuser, 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  assert.equal(res.status, 200, await res.clone().text())
  return (await res.json()).key
}

const clientFor = (key) => new AppSearchClient(undefined, key, () => base)

describe('@elastic/app-search-node', () => {
  let client, searchClient
  const engine = 'node-parks'

  before(async () => {
    const privateKey = await createKey({ name: 'node-private', type: 'private', read: true, write: true, access_all_engines: true })
    const searchKey = await createKey({ name: 'node-search', type: 'search', access_all_engines: true })
    assert.match(privateKey, /^private-[a-z0-9]{24}$/)
    assert.match(searchKey, /^search-[a-z0-9]{24}$/)
    client = clientFor(privateKey)
    searchClient = clientFor(searchKey)
  })

  after(async () => {
    await client.destroyEngine(engine).catch(() => {})
  })

  it('creates, gets and lists engines', async () => {
    const created = await client.createEngine(engine, { language: 'en' })
    assert.deepEqual(created, { name: engine, type: 'default', language: 'en', document_count: 0, index_create_settings_override: {} })
    const got = await client.getEngine(engine)
    assert.equal(got.name, engine)
    const list = await client.listEngines({ page: { current: 1, size: 20 } })
    assert.equal(list.meta.page.current, 1)
    assert.equal(list.meta.page.size, 20)
    assert.ok(list.results.some((e) => e.name === engine))
    // An endpoint-specific request error is a 200 {errors} (SPEC.md).
    assert.deepEqual(await client.createEngine(engine), { errors: ['Name is already taken'] })
  })

  it('indexes with a generated id and reports an invalid document', async () => {
    const one = await client.indexDocument(engine, { title: 'Acadia', visitors: 3303393, states: ['Maine'] })
    assert.match(one.id, /^doc-[0-9a-f]{24}$/)
    const results = await client.indexDocuments(engine, [
      { id: 'zion', title: 'Zion', visitors: 4320033, location: '37.3,-113.05' },
      { id: 'bad', Title: 'Invalid field name' }
    ])
    assert.deepEqual(results, [
      { id: 'zion', errors: [] },
      { id: 'bad', errors: ['Fields can only contain lowercase letters, numbers, and underscores: Title.'] }
    ])
    await assert.rejects(client.indexDocument(engine, { id: 'nested', park: { name: 'x' } }), /Nested objects are not supported/)

    const docs = await client.getDocuments(engine, ['zion', 'bad', one.id])
    assert.deepEqual(docs, [
      { title: 'Zion', visitors: '4320033', location: '37.3,-113.05', id: 'zion' },
      null,
      { title: 'Acadia', visitors: '3303393', states: ['Maine'], id: one.id }
    ])
    const list = await client.listDocuments(engine, { page: { current: 2, size: 1 } })
    assert.deepEqual(list.meta.page, { current: 2, total_pages: 2, total_results: 2, size: 1 })
    assert.equal(list.results.length, 1)

    const patched = await client.updateDocuments(engine, [{ id: 'zion', visitors: 1 }])
    assert.deepEqual(patched, [{ id: 'zion', errors: [] }])
  })

  it('updates the schema', async () => {
    const before = await client.getSchema(engine)
    assert.deepEqual(before, { title: 'text', visitors: 'text', states: 'text', location: 'text' })
    const after = await client.updateSchema(engine, { visitors: 'number', location: 'geolocation', established: 'date' })
    assert.deepEqual(after, { title: 'text', visitors: 'number', states: 'text', location: 'geolocation', established: 'date' })
    assert.deepEqual(await client.updateSchema(engine, { visitors: 'money' }),
      { errors: ['Invalid field type "money" for field visitors: must be one of text, number, date, geolocation'] })
    // Documents keep their stored values across the reindex.
    const [zion] = await client.getDocuments(engine, ['zion'])
    assert.deepEqual(zion, { title: 'Zion', visitors: '1', location: '37.3,-113.05', id: 'zion' })
  })

  it('refuses a search key outside the search endpoints', async () => {
    await assert.rejects(searchClient.listDocuments(engine), (err) => {
      assert.deepEqual(err.errorMessages, ['Search keys can only use the search endpoints'])
      return true
    })
    await assert.rejects(searchClient.indexDocuments(engine, [{ title: 'x' }]), (err) => {
      assert.deepEqual(err.errorMessages, ['Search keys can only use the search endpoints'])
      return true
    })
    await assert.rejects(clientFor('private-000000000000000000000000').getEngine(engine), (err) => {
      assert.deepEqual(err.errorMessages, ['invalid authentication token'])
      return true
    })
  })

  it('deletes documents and the engine', async () => {
    const deleted = await client.destroyDocuments(engine, ['zion', 'missing'])
    assert.deepEqual(deleted, [{ id: 'zion', deleted: true, result: true }, { id: 'missing', deleted: false, result: false }])
    assert.deepEqual(await client.destroyEngine(engine), { deleted: true })
    await assert.rejects(client.getEngine(engine), (err) => {
      assert.deepEqual(err.errorMessages, ['Could not find engine.'])
      return true
    })
  })
})
