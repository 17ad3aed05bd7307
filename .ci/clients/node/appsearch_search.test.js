'use strict'
// The official App Search Node client (@elastic/app-search-node 8.3.2),
// search side: search with filters, facets, sort, boosts, result_fields and
// group, multi search, query suggestion, curations, and the search key on
// the search endpoints, against a quarry node at QUARRY_URL.
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/appsearch_search.test.js

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const AppSearchClient = require('@elastic/app-search-node')

const url = process.env.QUARRY_PLAIN_URL || process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const base = `${url}/api/as/v1/`
const superuser = 'Basic ' + Buffer.from('elastic:' + (process.env.QUARRY_ELASTIC_PASSWORD || 'changeme')).toString('base64')

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
const ids = (res) => res.results.map((r) => r.id.raw)

const parks = [
  { id: 'acadia', title: 'Acadia', states: ['Maine'], visitors: 3303393, acres: 49057.36, established: '1919-02-26T06:00:00Z', location: '44.35,-68.21', description: 'Covering most of Mount Desert Island and other coastal islands.' },
  { id: 'zion', title: 'Zion', states: ['Utah'], visitors: 4320033, acres: 147237.02, established: '1919-11-19T06:00:00Z', location: '37.3,-113.05', description: 'Located at the junction of the Colorado Plateau, Great Basin, and Mojave Desert.' },
  { id: 'arches', title: 'Arches', states: ['Utah'], visitors: 1663557, acres: 76678.98, established: '1971-11-12T06:00:00Z', location: '38.68,-109.57', description: 'This site features more than 2,000 natural sandstone arches.' },
  { id: 'yosemite', title: 'Yosemite', states: ['California'], visitors: 4009436, acres: 761266.19, established: '1890-10-01T05:00:00Z', location: '37.83,-119.5', description: 'Yosemite features sheer granite cliffs, exceptionally tall waterfalls, and old-growth forests.' },
  { id: 'death-valley', title: 'Death Valley', states: ['California', 'Nevada'], visitors: 1296283, acres: 3373063.14, established: '1994-10-31T05:00:00Z', location: '36.24,-116.82', description: 'Death Valley is the hottest, lowest, and driest place in the United States.' }
]

describe('@elastic/app-search-node search', () => {
  let client, searchClient
  const engine = 'node-search-parks'

  before(async () => {
    const privateKey = await createKey({ name: 'node-search-private', type: 'private', read: true, write: true, access_all_engines: true })
    const searchKey = await createKey({ name: 'node-search-public', type: 'search', access_all_engines: true })
    client = clientFor(privateKey)
    searchClient = clientFor(searchKey)
    await client.createEngine(engine)
    await client.indexDocuments(engine, parks)
    const res = await fetch(`${base}engines/${engine}/schema`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${privateKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ visitors: 'number', acres: 'number', established: 'date', location: 'geolocation' })
    })
    assert.equal(res.status, 200, await res.clone().text())
  })

  after(async () => {
    await client.destroyEngine(engine).catch(() => {})
  })

  it('searches with filters, facets, sort and result_fields', async () => {
    const res = await searchClient.search(engine, '', {
      filters: { all: [{ states: ['Utah', 'California'] }, { none: { title: 'Arches' } }] },
      facets: { states: [{ type: 'value', size: 5 }], visitors: { type: 'range', ranges: [{ to: 2000000, name: 'quiet' }, { from: 2000000, name: 'busy' }] } },
      sort: [{ visitors: 'desc' }],
      result_fields: { title: { raw: {} }, visitors: { raw: {} }, description: { snippet: { size: 40, fallback: true } } },
      page: { size: 2, current: 1 }
    })
    assert.deepEqual(res.meta.page, { current: 1, total_pages: 2, total_results: 3, size: 2 })
    assert.equal(res.meta.engine.name, engine)
    assert.match(res.meta.request_id, /^[0-9a-f-]{36}$/)
    assert.deepEqual(ids(res), ['zion', 'yosemite'])
    assert.deepEqual(res.results[0].visitors, { raw: 4320033 })
    assert.equal(res.results[0]._meta.score, null)
    assert.deepEqual(res.facets.states, [{ type: 'value', data: [{ value: 'California', count: 2 }, { value: 'Nevada', count: 1 }, { value: 'Utah', count: 1 }] }])
    assert.deepEqual(res.facets.visitors, [{ type: 'range', data: [{ to: 2000000, name: 'quiet', count: 1 }, { from: 2000000, name: 'busy', count: 2 }] }])
  })

  it('applies boosts, snippets and geo sorting', async () => {
    const boosted = await searchClient.search(engine, 'features', {
      boosts: { visitors: { type: 'functional', function: 'logarithmic', factor: 5 } },
      result_fields: { description: { snippet: { size: 60 } } }
    })
    assert.deepEqual(ids({ results: boosted.results.map((r) => ({ id: { raw: r._meta.id } })) }), ['yosemite', 'arches'])
    assert.match(boosted.results[0].description.snippet, /<em>features<\/em>/)
    const near = await searchClient.search(engine, '', { sort: [{ location: { center: '37.77, -122.41', order: 'asc' } }], page: { size: 2 } })
    assert.deepEqual(ids(near), ['yosemite', 'death-valley'])
  })

  it('groups results', async () => {
    const res = await searchClient.search(engine, '', { group: { field: 'states', size: 3 }, sort: { title: 'asc' }, result_fields: { title: { raw: {} } } })
    assert.equal(res.meta.page.total_results, 3)
    const utah = res.results.find((r) => r._group_key === 'Utah')
    assert.equal(utah.title.raw, 'Arches')
    assert.deepEqual(utah._group.map((r) => r.title.raw), ['Zion'])
  })

  it('runs multi searches and reports invalid queries', async () => {
    const res = await searchClient.multiSearch(engine, [
      { query: 'desert', options: { page: { size: 1 } } },
      { query: '', options: { filters: { states: 'Nevada' } } }
    ])
    assert.equal(res.length, 2)
    assert.equal(res[0].meta.page.total_results, 2)
    assert.deepEqual(ids(res[1]), ['death-valley'])
    // SPEC.md: a request error is answered with status 200 and its errors.
    const bad = await searchClient.multiSearch(engine, [{ query: 'x', options: { badField: 1 } }, { query: 'y' }])
    assert.deepEqual(bad, [{ errors: ['Options contains invalid key: badField'] }, { errors: [] }])
  })

  it('suggests queries', async () => {
    const res = await searchClient.querySuggestion(engine, 'yos', { size: 3, types: { documents: { fields: ['title', 'description'] } } })
    assert.deepEqual(res.results.documents, [{ suggestion: 'yosemite' }])
    assert.match(res.meta.request_id, /^[0-9a-f-]{36}$/)
    const bad = await searchClient.querySuggestion(engine, 'x', { bad: 'option' })
    assert.deepEqual(bad, { errors: ['Options contains invalid key: bad'] })
  })

  it('curates results and refuses the search key elsewhere', async () => {
    const created = await client.createCuration(engine, { queries: ['utah'], promoted: ['yosemite'], hidden: ['arches'] })
    assert.match(created.id, /^cur-[0-9a-f]{24}$/)
    const res = await searchClient.search(engine, 'utah')
    assert.deepEqual(ids(res), ['yosemite', 'zion'])
    const cur = await client.getCuration(engine, created.id)
    assert.deepEqual(cur, { id: created.id, queries: ['utah'], promoted: ['yosemite'], hidden: ['arches'] })
    await client.destroyCuration(engine, created.id)
    await assert.rejects(searchClient.listCurations(engine))
  })
})
