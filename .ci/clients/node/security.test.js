'use strict'
// The official Node client (@elastic/elasticsearch 7.17) against a secured
// quarry node: roles and users, basic auth as the new user, a 403 for a
// read-only role writing, the token service, API keys and service account
// tokens. QUARRY_URL carries the elastic user's credentials
// (http://elastic:<password>@host:port); QUARRY_PLAIN_URL is the same node
// without them.
//
//   QUARRY_URL=http://elastic:pw@127.0.0.1:9200 QUARRY_PLAIN_URL=http://127.0.0.1:9200 node --test .ci/clients/node/security.test.js

const { describe, it, before } = require('node:test')
const assert = require('node:assert/strict')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const plainURL = process.env.QUARRY_PLAIN_URL || url
const admin = new Client({ node: url, maxRetries: 0, requestTimeout: 30000 })
const as = (auth) => new Client({ node: plainURL, auth, maxRetries: 0, requestTimeout: 30000 })

const INDEX = 'sec-books'

describe('security through the Node client', () => {
  before(async () => {
    await admin.indices.delete({ index: INDEX }, { ignore: [404] })
    await admin.index({ index: INDEX, id: '1', refresh: true, body: { title: 'Dune', year: 1965 } })
    await admin.index({ index: INDEX, id: '2', refresh: true, body: { title: 'Emma', year: 1815 } })
  })

  it('putRole and putUser create them, then basic auth works as the new user', async () => {
    const role = await admin.security.putRole({
      name: 'books_reader',
      body: { cluster: ['monitor'], indices: [{ names: ['sec-*'], privileges: ['read', 'view_index_metadata'] }] }
    })
    assert.deepEqual(role.body, { role: { created: true } })
    const user = await admin.security.putUser({
      username: 'reader1',
      body: { password: 'reader1-password', roles: ['books_reader'], full_name: 'Reader One', email: 'r1@example.org' }
    })
    assert.deepEqual(user.body, { created: true })

    const reader = as({ username: 'reader1', password: 'reader1-password' })
    const who = await reader.security.authenticate()
    assert.equal(who.body.username, 'reader1')
    assert.deepEqual(who.body.roles, ['books_reader'])
    assert.equal(who.body.full_name, 'Reader One')
    assert.equal(who.body.authentication_type, 'realm')
    assert.deepEqual(who.body.authentication_realm, { name: 'default_native', type: 'native' })

    const res = await reader.search({ index: INDEX, body: { query: { match: { title: 'dune' } } } })
    assert.equal(res.body.hits.total.value, 1)
    assert.equal(res.body.hits.hits[0]._id, '1')
  })

  it('a read-only role writing gets 403 security_exception', async () => {
    const reader = as({ username: 'reader1', password: 'reader1-password' })
    await assert.rejects(
      reader.index({ index: INDEX, id: '3', body: { title: 'Ulysses' } }),
      (err) => {
        assert.ok(err instanceof errors.ResponseError)
        assert.equal(err.meta.statusCode, 403)
        assert.equal(err.body.error.type, 'security_exception')
        assert.equal(err.body.error.reason,
          `action [indices:data/write/index] is unauthorized for user [reader1] with roles [books_reader] on indices [${INDEX}], this action is granted by the index privileges [index,write,all]`)
        return true
      })
  })

  it('a wrong password gets 401 with the challenges', async () => {
    await assert.rejects(
      as({ username: 'reader1', password: 'not-the-password' }).info(),
      (err) => {
        assert.equal(err.meta.statusCode, 401)
        assert.equal(err.body.error.reason, 'unable to authenticate user [reader1] for REST request [/]')
        assert.equal(err.meta.headers['www-authenticate'], 'Basic realm="security" charset="UTF-8", Bearer realm="security", ApiKey')
        return true
      })
  })

  it('getToken (password grant), then a request with the bearer token', async () => {
    const tok = await admin.security.getToken({ body: { grant_type: 'password', username: 'reader1', password: 'reader1-password' } })
    assert.equal(tok.body.type, 'Bearer')
    assert.equal(tok.body.expires_in, 1200)
    assert.ok(tok.body.refresh_token)
    const bearer = as({ bearer: tok.body.access_token })
    const who = await bearer.security.authenticate()
    assert.equal(who.body.username, 'reader1')
    assert.equal(who.body.authentication_type, 'token')
    const count = await bearer.count({ index: INDEX })
    assert.equal(count.body.count, 2)

    const inv = await admin.security.invalidateToken({ body: { token: tok.body.access_token } })
    assert.equal(inv.body.invalidated_tokens, 1)
    await assert.rejects(bearer.count({ index: INDEX }), (err) => err.meta.statusCode === 401)
  })

  it('createApiKey, then a request with ApiKey credentials', async () => {
    const key = await admin.security.createApiKey({
      body: { name: 'books-key', role_descriptors: { only_books: { indices: [{ names: [INDEX], privileges: ['read'] }] } } }
    })
    assert.equal(key.body.name, 'books-key')
    assert.equal(Buffer.from(key.body.encoded, 'base64').toString(), `${key.body.id}:${key.body.api_key}`)
    const keyed = as({ apiKey: { id: key.body.id, api_key: key.body.api_key } })
    const who = await keyed.security.authenticate()
    assert.equal(who.body.username, 'elastic')
    assert.equal(who.body.authentication_type, 'api_key')
    const res = await keyed.search({ index: INDEX, body: { query: { match_all: {} } } })
    assert.equal(res.body.hits.total.value, 2)
    await assert.rejects(keyed.indices.delete({ index: INDEX }), (err) => err.meta.statusCode === 403)

    const got = await admin.security.getApiKey({ id: key.body.id })
    assert.equal(got.body.api_keys.length, 1)
    assert.equal(got.body.api_keys[0].invalidated, false)
    const inv = await admin.security.invalidateApiKey({ body: { ids: [key.body.id] } })
    assert.deepEqual(inv.body.invalidated_api_keys, [key.body.id])
    await assert.rejects(keyed.count({ index: INDEX }), (err) => err.meta.statusCode === 401)
  })

  it('createServiceToken, then a request with the service token', async () => {
    const created = await admin.security.createServiceToken({ namespace: 'elastic', service: 'fleet-server', name: 'node-client-token' })
    assert.equal(created.body.created, true)
    assert.equal(created.body.token.name, 'node-client-token')
    const svc = as({ bearer: created.body.token.value })
    const who = await svc.security.authenticate()
    assert.equal(who.body.username, 'elastic/fleet-server')
    assert.deepEqual(who.body.token, { name: 'node-client-token', type: '_service_account_index' })
    const health = await svc.cluster.health()
    assert.ok(['green', 'yellow'].includes(health.body.status))

    const creds = await admin.security.getServiceCredentials({ namespace: 'elastic', service: 'fleet-server' })
    assert.equal(creds.body.count, 1)
    assert.deepEqual(Object.keys(creds.body.tokens), ['node-client-token'])
    await admin.security.deleteServiceToken({ namespace: 'elastic', service: 'fleet-server', name: 'node-client-token' })
    await assert.rejects(svc.cluster.health(), (err) => err.meta.statusCode === 401)
  })
})
