'use strict'
// The App Search part of the official Enterprise Search Node client
// (@elastic/enterprise-search 8.18.0, client.app) against a quarry node at
// QUARRY_PLAIN_URL. The superuser's Basic credentials create the keys
// through the client itself (POST /api/as/v1/credentials), as the README's
// quick start does.
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/appsearch_enterprise.test.js

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Client } = require('@elastic/enterprise-search')

const url = process.env.QUARRY_PLAIN_URL || process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const password = process.env.QUARRY_ELASTIC_PASSWORD || 'changeme'

const parks = [
  { id: 'acadia', title: 'Acadia', states: ['Maine'], visitors: 3303393, established: '1919-02-26T06:00:00Z', location: '44.35,-68.21', description: 'Covering most of Mount Desert Island and other coastal islands.' },
  { id: 'zion', title: 'Zion', states: ['Utah'], visitors: 4320033, established: '1919-11-19T06:00:00Z', location: '37.3,-113.05', description: 'Located at the junction of the Colorado Plateau, Great Basin, and Mojave Desert.' },
  { id: 'arches', title: 'Arches', states: ['Utah'], visitors: 1663557, established: '1971-11-12T06:00:00Z', location: '38.68,-109.57', description: 'This site features more than 2,000 natural sandstone arches.' },
  { id: 'yosemite', title: 'Yosemite', states: ['California'], visitors: 4009436, established: '1890-10-01T05:00:00Z', location: '37.83,-119.5', description: 'Yosemite features sheer granite cliffs, exceptionally tall waterfalls, and old-growth forests.' },
  { id: 'death-valley', title: 'Death Valley', states: ['California', 'Nevada'], visitors: 1296283, established: '1994-10-31T05:00:00Z', location: '36.24,-116.82', description: 'Death Valley is the hottest, lowest, and driest place in the United States.' }
]

const ids = (res) => res.results.map((r) => r.id.raw)

// rejectsWith asserts that a client call fails with the given HTTP status
// and response body.
async function rejectsWith (promise, statusCode, body) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, 'ResponseError')
    assert.equal(err.meta.statusCode, statusCode)
    assert.deepEqual(err.meta.body, body)
    return true
  })
}

describe('@elastic/enterprise-search app client', () => {
  const engine = 'ent-parks'
  const superuser = new Client({ url, auth: { username: 'elastic', password } })
  let app, search, generatedId

  before(async () => {
    const privateKey = await superuser.app.createApiKey({ body: { name: 'ent-private', type: 'private', read: true, write: true, access_all_engines: true } })
    assert.match(privateKey.key, /^private-[a-z0-9]{24}$/)
    assert.deepEqual([privateKey.name, privateKey.type, privateKey.read, privateKey.write, privateKey.access_all_engines], ['ent-private', 'private', true, true, true])
    const searchKey = await superuser.app.createApiKey({ body: { name: 'ent-search', type: 'search', access_all_engines: true } })
    assert.match(searchKey.key, /^search-[a-z0-9]{24}$/)
    app = new Client({ url, auth: { token: privateKey.key } }).app
    search = new Client({ url, auth: { token: searchKey.key } }).app
  })

  after(async () => {
    await app.deleteEngine({ engine_name: engine }).catch(() => {})
    for (const name of ['ent-private', 'ent-search']) await superuser.app.deleteApiKey({ api_key_name: name }).catch(() => {})
    await superuser.close()
  })

  it('creates, lists and gets an engine', async () => {
    const created = await app.createEngine({ body: { name: engine, language: 'en' } })
    assert.deepEqual(created, { name: engine, type: 'default', language: 'en', document_count: 0, index_create_settings_override: {} })
    // The client sends the page as bracketed query parameters.
    const list = await app.listEngines({ page: { current: 1, size: 20 } })
    assert.equal(list.meta.page.current, 1)
    assert.equal(list.meta.page.size, 20)
    assert.deepEqual(list.results.filter((e) => e.name === engine), [created])
    const got = await app.getEngine({ engine_name: engine })
    assert.deepEqual(got, created)
    await rejectsWith(app.getEngine({ engine_name: 'ent-missing' }), 404, { errors: ['Could not find engine.'] })
  })

  it('indexes with a generated id and reports an invalid document', async () => {
    const res = await app.indexDocuments({
      engine_name: engine,
      documents: [
        { title: 'Generated', description: 'No id given.' },
        { id: 'bad', park: { name: 'nested' } },
        ...parks
      ]
    })
    assert.equal(res.length, 7)
    assert.match(res[0].id, /^doc-[0-9a-f]{24}$/)
    assert.deepEqual(res[0].errors, [])
    generatedId = res[0].id
    assert.deepEqual(res[1], { id: 'bad', errors: ['Nested objects are not supported (flatten them into top-level fields): park.'] })
    assert.deepEqual(res.slice(2), parks.map((p) => ({ id: p.id, errors: [] })))

    // GET with a JSON array body.
    const docs = await app.getDocuments({ engine_name: engine, documentIds: [generatedId, 'bad', 'zion'] })
    assert.deepEqual(docs, [
      { id: generatedId, title: 'Generated', description: 'No id given.' },
      null,
      { id: 'zion', title: 'Zion', states: ['Utah'], visitors: '4320033', established: '1919-11-19T06:00:00Z', location: '37.3,-113.05', description: 'Located at the junction of the Colorado Plateau, Great Basin, and Mojave Desert.' }
    ])
    const list = await app.listDocuments({ engine_name: engine, page: { current: 2, size: 4 } })
    assert.deepEqual(list.meta.page, { current: 2, total_pages: 2, total_results: 6, size: 4 })
    assert.equal(list.results.length, 2)
  })

  it('updates the schema', async () => {
    const schema = await app.putSchema({ engine_name: engine, schema: { visitors: 'number', established: 'date', location: 'geolocation' } })
    assert.deepEqual(schema, { title: 'text', description: 'text', states: 'text', visitors: 'number', established: 'date', location: 'geolocation' })
    assert.deepEqual(await app.getSchema({ engine_name: engine }), schema)
    const changed = await app.putSchema({ engine_name: engine, schema: { visitors: 'money' } })
    assert.deepEqual(changed, { errors: ['Invalid field type "money" for field visitors: must be one of text, number, date, geolocation'] })
  })

  it('searches with filters, facets, sort, boosts, result_fields and group', async () => {
    const res = await search.search({
      engine_name: engine,
      body: {
        query: '',
        filters: { all: [{ states: ['Utah', 'California'] }, { none: { title: 'Arches' } }, { visitors: { from: 1000000 } }] },
        facets: { states: { type: 'value', sort: { count: 'desc' }, size: 3 }, visitors: { type: 'range', ranges: [{ to: 4000000, name: 'fewer' }, { from: 4000000, name: 'more' }] } },
        sort: [{ visitors: 'asc' }],
        result_fields: { title: { raw: {} }, visitors: { raw: {} }, states: { raw: {} } },
        page: { size: 10, current: 1 }
      }
    })
    assert.deepEqual(res.meta.page, { current: 1, total_pages: 1, total_results: 3, size: 10 })
    assert.deepEqual(ids({ results: res.results.map((r) => ({ id: { raw: r._meta.id } })) }), ['death-valley', 'yosemite', 'zion'])
    assert.deepEqual(res.results[0], { id: { raw: 'death-valley' }, title: { raw: 'Death Valley' }, visitors: { raw: 1296283 }, states: { raw: ['California', 'Nevada'] }, _meta: { id: 'death-valley', engine, score: null } })
    assert.deepEqual(res.facets.states, [{ type: 'value', data: [{ value: 'California', count: 2 }, { value: 'Nevada', count: 1 }, { value: 'Utah', count: 1 }] }])
    assert.deepEqual(res.facets.visitors, [{ type: 'range', data: [{ to: 4000000, name: 'fewer', count: 1 }, { from: 4000000, name: 'more', count: 2 }] }])

    // A value boost lifts the boosted document above the others.
    const plain = await search.search({ engine_name: engine, body: { query: 'features', result_fields: { title: { raw: {} } } } })
    assert.deepEqual(plain.results.map((r) => r._meta.id), ['arches', 'yosemite'])
    const boosted = await search.search({
      engine_name: engine,
      body: { query: 'features', boosts: { states: { type: 'value', value: 'California', operation: 'multiply', factor: 10 } }, result_fields: { title: { raw: {} }, description: { snippet: { size: 60, fallback: true } } } }
    })
    assert.deepEqual(boosted.results.map((r) => r._meta.id), ['yosemite', 'arches'])
    assert.ok(boosted.results[0]._meta.score > boosted.results[1]._meta.score)
    assert.match(boosted.results[0].description.snippet, /<em>features<\/em>/)

    const grouped = await search.search({ engine_name: engine, body: { query: '', filters: { states: ['Utah', 'California'] }, group: { field: 'states', size: 2 }, sort: { title: 'asc' }, result_fields: { title: { raw: {} } } } })
    assert.deepEqual(grouped.results.map((r) => [r._group_key, r.title.raw, r._group.map((g) => g.title.raw)]), [
      ['Utah', 'Arches', ['Zion']],
      ['California', 'Death Valley', ['Yosemite']]
    ])

    const invalid = await search.search({ engine_name: engine, body: { query: '', sort: { description: 'asc' }, facets: { location: { type: 'value' } } } })
    assert.ok(Array.isArray(invalid.errors) && invalid.errors.length > 0, JSON.stringify(invalid))
  })

  it('runs multi searches and query suggestions', async () => {
    const res = await search.multiSearch({
      engine_name: engine,
      body: { queries: [{ query: 'desert', page: { size: 1 } }, { query: '', filters: { states: 'Nevada' } }] }
    })
    assert.equal(res.length, 2)
    assert.deepEqual(res[0].meta.page, { current: 1, total_pages: 2, total_results: 2, size: 1 })
    assert.deepEqual(ids(res[1]), ['death-valley'])

    const suggestions = await search.querySuggestion({ engine_name: engine, body: { query: 'yos', types: { documents: { fields: ['title'] } }, size: 3 } })
    assert.deepEqual(suggestions.results, { documents: [{ suggestion: 'yosemite' }] })
    assert.match(suggestions.meta.request_id, /^[0-9a-f-]{36}$/)
  })

  it('allows the search key on search only', async () => {
    const found = await search.search({ engine_name: engine, body: { query: 'zion' } })
    assert.deepEqual(ids(found), ['zion'])
    const refused = { error: 'Search keys can only use the search endpoints' }
    await rejectsWith(search.getEngine({ engine_name: engine }), 403, refused)
    await rejectsWith(search.indexDocuments({ engine_name: engine, documents: [{ title: 'x' }] }), 403, refused)
    await rejectsWith(search.getSchema({ engine_name: engine }), 403, refused)
    await rejectsWith(search.listApiKeys(), 403, refused)
    // A private key cannot manage credentials; a wrong key is a 400.
    await rejectsWith(app.listApiKeys(), 403, { error: 'The credentials API needs an admin key' })
    // An admin key manages credentials only.
    const adminKey = await superuser.app.createApiKey({ body: { name: 'ent-admin', type: 'admin' } })
    assert.match(adminKey.key, /^admin-[a-z0-9]{24}$/)
    const admin = new Client({ url, auth: { token: adminKey.key } }).app
    const got = await admin.getApiKey({ api_key_name: 'ent-search' })
    assert.deepEqual([got.name, got.type, got.access_all_engines], ['ent-search', 'search', true])
    await rejectsWith(admin.getEngine({ engine_name: engine }), 403, { error: 'Admin keys can only use the credentials API' })
    assert.deepEqual(await admin.deleteApiKey({ api_key_name: 'ent-admin' }), { deleted: true })
    const wrong = new Client({ url, auth: { token: 'search-000000000000000000000000' } }).app
    await rejectsWith(wrong.search({ engine_name: engine, body: { query: '' } }), 400, { error: 'invalid authentication token' })
  })

  it('deletes documents and the engine', async () => {
    const deleted = await app.deleteDocuments({ engine_name: engine, documentIds: [generatedId, 'missing'] })
    assert.deepEqual(deleted, [{ id: generatedId, deleted: true }, { id: 'missing', deleted: false }])
    assert.deepEqual(await app.deleteEngine({ engine_name: engine }), { deleted: true })
    await rejectsWith(app.getEngine({ engine_name: engine }), 404, { errors: ['Could not find engine.'] })
  })
})
