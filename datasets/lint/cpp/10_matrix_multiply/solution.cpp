#include <iostream>
#include <vector>

using namespace std;

typedef vector<vector<long long>> Matrix;

Matrix readMatrix(int rows, int cols) {
    Matrix m(rows, vector<long long>(cols));
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) cin >> m[i][j];
    return m;
}

Matrix multiply(Matrix a, Matrix b) {
    int n = a.size(), m = b.size(), p = b[0].size();
    Matrix c(n, vector<long long>(p, 0));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < m; k++)
            for (int j = 0; j < p; j++) c[i][j] += a[i][k] * b[k][j];
    return c;
}

int main() {
    int n, m, p;
    cin >> n >> m >> p;
    Matrix a = readMatrix(n, m);
    Matrix b = readMatrix(m, p);
    Matrix c = multiply(a, b);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < p; j++) {
            if (j) cout << ' ';
            cout << c[i][j];
        }
        cout << '\n';
    }
    return 0;
}
